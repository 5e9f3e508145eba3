import { randomUUID } from "node:crypto";

import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll } from "vitest";

import type { AllocationDeps, AllocationTarget, TransferPath } from "../../src/allocation/allocationDeps.ts";
import { createAllocationGuard } from "../../src/allocation/allocationGuard.ts";
import { AllocationService } from "../../src/allocation/allocationService.ts";
import { createDatabaseLockProvider } from "../../src/allocation/databaseAllocationLock.ts";
import { gatewayAllocationUpstream } from "../../src/allocation/gatewayAllocationUpstream.ts";
import { orgs } from "../../src/db/schema.ts";
import { DIMENSIONS, type Need, type Units } from "../../src/domain/allocation.ts";
import { type Clock, systemClock } from "../../src/domain/clock.ts";
import type { MeteredWriteContext, MeteredWriteGuard } from "../../src/domain/meteredWrites.ts";
import { createGatewayClient, type GatewayClient } from "../../src/gateway/index.ts";
import { reentrant } from "../../src/locks/reentrantLock.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { OrgService } from "../../src/orgs/orgService.ts";
import type { SimulatorSettings } from "../../src/simulator/createSimulator.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { ensureUnderLock } from "./ensureUnderLock.ts";
import { LogCapture } from "./logCapture.ts";
import { startTestSimulator, type TestSimulator } from "./simulator.ts";
import { catalogueLanguageId, UM } from "./simulator.ts";

export const TOKEN = "allocation-test-token";
export const PARENT = GOLD_PARENT_WORKSPACE_ID;

/**
 * The allocation guard wired for real: the gateway client over real HTTP against the in-process
 * simulator (gold pool, 13 / 800), the database lock and ledger. `calls()` reads the simulator's call
 * log, the instrument for "exactly N upstream calls" assertions.
 */
export interface AllocationWorld {
  sim: TestSimulator;
  client: GatewayClient;
  deps: AllocationDeps;
  env: Record<string, string>;
  events: EventBus;
  logs: LogCapture;
  orgId: string;
  /** The guard of one request into the sub-workspace, as the composition root builds it. */
  guardFor(subWorkspaceId: string | null, extra?: Partial<MeteredWriteContext>): MeteredWriteGuard;
  /** The top-up rules on their own (`ensureHeadroom` under the lock), with their result. */
  ensure(
    subWorkspaceId: string,
    need: Need,
    options?: { requestId?: string; path?: TransferPath },
  ): ReturnType<typeof ensureUnderLock>;
  /** §7 with its report: the operators' release, on the request path unless told otherwise. */
  release(
    subWorkspaceId: string,
    options: Parameters<AllocationService["releaseSurplus"]>[1],
  ): ReturnType<AllocationService["releaseSurplus"]>;
  /** A settled sub-workspace of the gold parent carved with `totals` (taken from the pool). */
  newSubWorkspace(totals?: Partial<Units>): Promise<string>;
  totals(workspaceId: string): Promise<Units>;
  /** A metered project create in the workspace; resolves with the project id. */
  createProject(workspaceId: string): Promise<string>;
  /** The simulator's call log as `METHOD path` lines, minus control routes. */
  calls(): Promise<string[]>;
  clearCalls(): Promise<void>;
  close(): Promise<void>;
}

export async function startAllocationWorld(
  db: TestDatabase,
  options: {
    clock?: Clock;
    env?: Record<string, string>;
    settings?: Partial<SimulatorSettings>;
    /** The simulator's clock (ms since the epoch; default the system clock): its lags run on it. */
    simulatorNow?: () => number;
    /** The lock's own clock and lease length (default: the system clock, 6 s). */
    lock?: { clock?: Clock; ttlMs?: number };
  } = {},
): Promise<AllocationWorld> {
  const clock = options.clock ?? systemClock;
  const sim = await startTestSimulator({
    seed: "gold",
    settings: { settleReads: 0, ...options.settings },
    now: options.simulatorNow,
  });
  const events = new EventBus();
  const logs = new LogCapture();
  const logger = createLogger({ level: "debug", destination: logs });
  const client = createGatewayClient({ projectsBaseUrl: sim.url, usersBaseUrl: sim.url, events, logger });
  const env: Record<string, string> = { SERENITY_DYNAMIC_ALLOCATION: "true", ...options.env };
  // The lock waits on real contention (system clock); the guard's retry waits use `clock`.
  const lock = reentrant(
    createDatabaseLockProvider({
      db: db.db,
      clock: options.lock?.clock ?? systemClock,
      ttlMs: options.lock?.ttlMs,
      events,
      logger,
      env,
    }),
  );
  const deps: AllocationDeps = {
    db: db.db,
    clock,
    events,
    logger,
    upstream: gatewayAllocationUpstream(client),
    lock,
    env,
  };
  const orgId = randomUUID();
  // The org owns the gold parent, as in production (what is known of its pool is on the parent's
  // entry, found through it): one owner per parent, so an earlier world's org of this database
  // lets go of it first, and of its entries of the gold workspaces (one entry per workspace).
  const created = new Date();
  await db.db.update(orgs).set({ parentWorkspaceId: null }).where(eq(orgs.parentWorkspaceId, PARENT));
  await db.db.execute(sql`delete from resource_observations where workspace_id = ${PARENT}`);
  await db.db.insert(orgs).values({
    id: orgId,
    name: "Allocation org",
    parentWorkspaceId: PARENT,
    createdAt: created,
    updatedAt: created,
  });
  // Built per call: a test may swap a dependency (the upstream, the siblings) on `deps` first.
  const allocation = () => new AllocationService({ ...deps, orgs: new OrgService({ db: db.db, clock }) });
  const target = (subWorkspaceId: string, requestId = `req-${randomUUID()}`): AllocationTarget => ({
    orgId,
    brandId: randomUUID(),
    subWorkspaceId,
    parentWorkspaceId: PARENT,
    requestId,
    bearer: TOKEN,
  });
  let counter = 0;

  return {
    sim,
    client,
    deps,
    env,
    events,
    logs,
    orgId,
    guardFor: (subWorkspaceId, extra = {}) =>
      createAllocationGuard(deps, {
        orgId,
        brandId: randomUUID(),
        subWorkspaceId,
        parentWorkspaceId: PARENT,
        requestId: `req-${randomUUID()}`,
        bearer: TOKEN,
        flat: false,
        metering: "metered",
        ...extra,
      }),
    ensure: (subWorkspaceId, need, options = {}) =>
      ensureUnderLock(deps, target(subWorkspaceId, options.requestId), need, options.path),
    release: (subWorkspaceId, options) =>
      allocation().releaseSurplus(target(subWorkspaceId), { path: "failFast", ...options }),
    async newSubWorkspace(totals = {}) {
      const resources = Object.fromEntries(Object.entries(totals).filter(([, value]) => value !== 0));
      const workspace = await client.users.createSubWorkspace(TOKEN, PARENT, {
        title: `brand-${++counter}-${randomUUID().slice(0, 8)}`,
        resources,
      });
      await client.users.getStatus(TOKEN, workspace.id);
      return workspace.id;
    },
    totals: (workspaceId) => sim.totals(workspaceId),
    async createProject(workspaceId) {
      const project = await client.projects.createProject(TOKEN, workspaceId, {
        name: `market-${++counter}`,
        brandNameDisplay: "Brand",
        brandNames: ["Brand"],
        domain: "brand.example",
        countryCode: "FR",
        locationId: 2250,
        locationName: "France",
        languageId: catalogueLanguageId("en"),
      });
      return project.id;
    },
    async calls() {
      return (await sim.calls())
        .filter((call) => !call.path.startsWith("/__sim"))
        .map(
          (call) => `${call.method} ${call.path.replace(UM, "UM").replace("/enterprise/projects/api", "PE")}`,
        );
    },
    clearCalls: () => sim.clearCalls(),
    async close() {
      await client.close();
      await sim.close();
    },
  };
}

/** Carves what is left of the gold pool into a filler sub-workspace, leaving `free` units in the parent. */
export async function drainPool(t: AllocationWorld, free: Partial<Units> = {}): Promise<void> {
  const parent = await t.client.users.getResources(TOKEN, PARENT);
  const carve: Partial<Units> = {};
  for (const dimension of DIMENSIONS) {
    carve[dimension] = parent[dimension].total - parent[dimension].used - (free[dimension] ?? 0);
  }
  await t.newSubWorkspace(carve);
}

/** `parent.total + Σ child totals` per dimension of the gold pool: what no transfer may change. */
export async function poolSum(t: AllocationWorld): Promise<Units> {
  const dump = await t.sim.dump();
  const sum = { projects: 0, prompts: 0 };
  for (const workspace of dump.workspaces) {
    if (workspace.id !== PARENT && workspace.parent_id !== PARENT) continue;
    for (const dimension of DIMENSIONS) sum[dimension] += workspace.resources[dimension].total;
  }
  return sum;
}

/**
 * A file's allocation worlds, one per test: the test database is made once for the file, and each
 * world a test starts is closed after it (vitest hooks registered here).
 */
export function allocationWorldPerTest(): {
  /** The file's test database (set once its `beforeAll` ran). */
  readonly db: TestDatabase;
  start(options?: Parameters<typeof startAllocationWorld>[1]): Promise<AllocationWorld>;
} {
  let db: TestDatabase | undefined;
  let current: AllocationWorld | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  afterAll(() => db?.destroy());
  return {
    get db() {
      return db!;
    },
    async start(options) {
      current = await startAllocationWorld(db!, options);
      return current;
    },
  };
}

/**
 * Forgets what Serenity knows of `orgId`'s pool (docs/decisions/0033): for a suite that resets the
 * simulator under a running Serenity — a new upstream, as if units had been added outside it,
 * that no pool sampler has read. The parent entry's version moves on, as a release's would: a call
 * still in flight cannot record what it learned of the old upstream.
 */
export async function forgetPoolFreeBounds(db: TestDatabase["db"], orgId: string): Promise<void> {
  await db.execute(sql`update resource_observations set projects_free_below = null, prompts_free_below = null,
    version = version + 1 where org_id = ${orgId}::uuid and workspace_id in (select parent_workspace_id from orgs where id = ${orgId}::uuid)`);
}

/** The org buys `prompts` more prompt units: the gold parent's total grows, outside Serenity. */
export async function buyPromptUnits(t: AllocationWorld, prompts: number): Promise<void> {
  const parent = await t.client.users.getResources(TOKEN, PARENT);
  await t.sim.control("/quota", { workspaceId: PARENT, prompts: { total: parent.prompts.total + prompts } });
}
