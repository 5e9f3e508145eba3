import type { SimContext } from "./context.ts";
import { observeStatus } from "./lifecycle.ts";
import type { ParsedSnapshot } from "./store/snapshot.ts";

export interface SimulatorDump {
  workspaces: (ParsedSnapshot["workspaces"][number] & { settles_to: string })[];
  projects: ParsedSnapshot["projects"];
  /** How many calls the call log holds. */
  calls: number;
}

/**
 * The whole store as JSON (`GET /__sim/dump`). A workspace's `status` is what a status read would
 * answer now (without spending a read); `settles_to` is the status it settles to. The dump is a
 * valid snapshot: `POST /__sim/seed` with it restores the store.
 */
export function dumpStore(ctx: SimContext): SimulatorDump {
  const snapshot = ctx.store.toSnapshot();
  const now = ctx.now();
  return {
    workspaces: snapshot.workspaces.map((entry) => {
      const workspace = ctx.store.workspace(entry.id)!;
      return { ...entry, status: observeStatus(workspace, now, false), settles_to: workspace.status };
    }),
    projects: snapshot.projects,
    calls: ctx.calls.size,
  };
}
