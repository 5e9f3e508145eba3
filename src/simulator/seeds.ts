import type { SimulatorSnapshot } from "./store/snapshot.ts";

/**
 * Built-in seeds (spec/gateway.md §6). Their ids are constants so a demo org created by
 * `serenity start` keeps pointing at the same parent across restarts.
 */
export const GOLD_PARENT_WORKSPACE_ID = "5e6f0a1d-60d0-4c3b-9a7e-000000000013";
export const UNMETERED_PARENT_WORKSPACE_ID = "5e6f0a1d-60d0-4c3b-9a7e-0000000000ff";

export type SeedName = "gold" | "unmetered" | "empty";
export const SEED_NAMES: readonly SeedName[] = ["gold", "unmetered", "empty"];

const POOL = {
  projects: { used: 0, drafted: 0, total: 13 },
  prompts: { used: 0, drafted: 0, total: 800 },
};

export function seedSnapshot(name: SeedName): SimulatorSnapshot {
  switch (name) {
    case "gold":
      // One metered parent holding the classic paid pool, no children.
      return {
        workspaces: [
          {
            id: GOLD_PARENT_WORKSPACE_ID,
            title: "Gold parent workspace",
            status: "created",
            parent_id: null,
            limits_enabled: { ai: true },
            resources: POOL,
          },
        ],
      };
    case "unmetered":
      // Same pool numbers, metering off: every write is accepted whatever the totals.
      return {
        workspaces: [
          {
            id: UNMETERED_PARENT_WORKSPACE_ID,
            title: "Unmetered parent workspace",
            status: "created",
            parent_id: null,
            limits_enabled: { ai: false },
            resources: POOL,
          },
        ],
      };
    case "empty":
      return { workspaces: [] };
  }
}

export function isSeedName(value: string): value is SeedName {
  return (SEED_NAMES as readonly string[]).includes(value);
}
