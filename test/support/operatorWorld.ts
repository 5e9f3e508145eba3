import { randomUUID } from "node:crypto";

import { eq, inArray } from "drizzle-orm";

import { loadConfig } from "../../src/config/env.ts";
import { allocationLedger, brands, orgs } from "../../src/db/schema.ts";
import type { Units } from "../../src/domain/allocation.ts";
import type { Clock } from "../../src/domain/clock.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { openRuntime, type Runtime } from "../../src/runtime/runtime.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { LogCapture } from "./logCapture.ts";
import { startTestSimulator, type TestSimulator } from "./simulator.ts";

export const TOKEN = "operator-upstream-token";
export const PARENT = GOLD_PARENT_WORKSPACE_ID;
export const CREDENTIAL_KEY = Buffer.alloc(32, 7).toString("base64");

/**
 * The operator tools' world: a test database, the real runtime (its gateway client over real HTTP)
 * against the gold simulator (pool 13 projects / 800 prompts), and helpers that create an org
 * with brands whose sub-workspaces are carved from the pool and given usage.
 */
/**
 * The org both operator suites seed (pool 13 / 800 before carving, 4 / 200 free after it):
 *   A: total 5 / 300, used 1 / 150 → stranded 4 / 100; a sweep keeps 1 / 200 and returns 4 / 100
 *   B: total 3 / 200, used 2 / 0   → stranded 1 / 200; a sweep keeps 2 / 100 and returns 1 / 100
 *   C: total 1 / 100, used 0 / 0   → stranded 1 / 100; a sweep keeps 1 / 100 (both floors)
 */
export const THREE_CARVED_BRANDS = [
  { total: { projects: 5, prompts: 300 }, used: { projects: 1, prompts: 150 } },
  { total: { projects: 3, prompts: 200 }, used: { projects: 2, prompts: 0 } },
  { total: { projects: 1, prompts: 100 }, used: { projects: 0, prompts: 0 } },
];

export interface OperatorWorld {
  db: TestDatabase;
  sim: TestSimulator;
  runtime: Runtime;
  logs: LogCapture;
  /** A clock whose sleeps are recorded and return at once (the sweep's rate-limit pause). */
  clock: Clock & { sleeps: number[] };
  close(): Promise<void>;
}

export async function startOperatorWorld(): Promise<OperatorWorld> {
  const db = await createTestDatabase();
  const sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  const logs = new LogCapture();
  const config = loadConfig({
    DATABASE_URL: db.url,
    SEMRUSH_PROJECTS_BASE_URL: sim.url,
    SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY,
    // The shared budget's real-time pacing is not these tests' subject.
    SERENITY_UPSTREAM_RATE_PER_SECOND: "0",
  });
  const runtime = await openRuntime(config, createLogger({ level: "debug", destination: logs }), {
    migrate: false,
  });
  const sleeps: number[] = [];
  const clock = {
    sleeps,
    now: () => new Date(),
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
  };
  return {
    db,
    sim,
    runtime,
    logs,
    clock,
    async close() {
      await runtime.close();
      await sim.close();
      await db.destroy();
    },
  };
}

export interface SeededBrand {
  brandId: string;
  subWorkspaceId: string;
}

/**
 * An org on the gold pool with one brand per spec: a sub-workspace carved with `total` (taken from
 * the pool by a real transfer at creation) and then given `used` units through `/__sim/quota`.
 */
export async function seedOrg(
  world: OperatorWorld,
  specs: { total: Units; used: Units }[],
): Promise<{ orgId: string; brands: SeededBrand[] }> {
  const orgId = randomUUID();
  const base = Date.now();
  // One org per pool: the org of an earlier set-up on this pool (whose workspaces a simulator
  // reset removed) gives it up first.
  const previous = world.runtime.database.db
    .select({ id: orgs.id })
    .from(orgs)
    .where(eq(orgs.parentWorkspaceId, PARENT));
  await world.runtime.database.db.delete(brands).where(inArray(brands.orgId, previous));
  await world.runtime.database.db.delete(orgs).where(eq(orgs.parentWorkspaceId, PARENT));
  await world.runtime.database.db.insert(orgs).values({
    id: orgId,
    name: "Operator org",
    parentWorkspaceId: PARENT,
    createdAt: new Date(base),
    updatedAt: new Date(base),
  });
  const seeded: SeededBrand[] = [];
  for (const [index, spec] of specs.entries()) {
    const workspace = await world.runtime.gateway.users.createSubWorkspace(TOKEN, PARENT, {
      title: `operator-${orgId.slice(0, 8)}-${index}`,
      resources: spec.total,
    });
    await world.sim.control("/quota", {
      workspaceId: workspace.id,
      projects: { used: spec.used.projects },
      prompts: { used: spec.used.prompts },
    });
    const at = new Date(base + index + 1); // a stable order: the sweep visits brands by creation
    const [row] = await world.runtime.database.db
      .insert(brands)
      .values({
        orgId,
        name: `Brand ${index}`,
        status: "active",
        subWorkspaceId: workspace.id,
        provisioningStatus: "ready",
        createdAt: at,
        updatedAt: at,
      })
      .returning({ id: brands.id });
    seeded.push({ brandId: row!.id, subWorkspaceId: workspace.id });
  }
  return { orgId, brands: seeded };
}

/** Upstream calls that change something (anything but a GET), from the simulator's call log. */
export async function mutatingCalls(world: OperatorWorld): Promise<string[]> {
  return (await world.sim.calls())
    .filter((call) => call.method !== "GET" && !call.path.startsWith("/__sim"))
    .map((call) => `${call.method} ${call.path}`);
}

export async function ledgerOf(world: OperatorWorld, orgId: string) {
  return world.runtime.database.db.select().from(allocationLedger).where(eq(allocationLedger.orgId, orgId));
}
