import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "../../../src/config/env.ts";
import { brands, jobs, orgs } from "../../../src/db/schema.ts";
import type { IdleOrgSettings } from "../../../src/domain/orgBackgroundPace.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { UpstreamReconcileSchedule } from "../../../src/operations/upstreamReconcileSchedule.ts";
import { PoolSampler } from "../../../src/poolView/poolSampler.ts";
import { openRuntime, type Runtime } from "../../../src/runtime/runtime.ts";
import { upstreamReconcilerOf } from "../../../src/runtime/upstreamReconcilerOf.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { LogCapture } from "../../support/logCapture.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";

/**
 * Background work proportional to change (docs/decisions/0042), counted on the simulator's call
 * log: the real runtime on a ManualClock, its gateway client over real HTTP against the simulator,
 * and two "workers" — two pool samplers and two reconcile schedules, each with its own holder, on
 * one database — ticked the way `startWorker` ticks them (every 15 s), at production periods
 * (sampler 60 s, reconciler 5 min, idle after 1 h, 12 calls an hour). Time moves by hand: a
 * simulated hour is 240 ticks, and nothing sleeps.
 */

const OPERATOR = "idle-orgs-operator-token";
const ADMIN = "simulator-admin-token";
const TICK_MS = 15_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SAMPLE_EVERY_MS = MINUTE;
const IDLE: IdleOrgSettings = { afterMs: HOUR, callsPerHour: 12 };

let db: TestDatabase;
let sim: TestSimulator;
let runtime: Runtime;
const clock = new ManualClock(new Date("2026-12-05T00:00:00.000Z"));

interface Worker {
  sampler: PoolSampler;
  schedule: UpstreamReconcileSchedule;
}
let workers: Worker[];

/** Per org: the reconcile runs and pool samples the workers made, tick after tick. */
const reconciled = new Map<string, number>();
let samples = 0;

function worker(idle: IdleOrgSettings): Worker {
  return {
    sampler: new PoolSampler({
      db: runtime.database.db,
      clock,
      logger: runtime.logger,
      credentials: runtime.services.jobs.credentials,
      poolView: runtime.services.poolView,
      operatorBearer: OPERATOR,
      idle,
    }),
    schedule: new UpstreamReconcileSchedule({
      db: runtime.database.db,
      clock,
      logger: runtime.logger,
      events: runtime.events,
      credentials: runtime.services.jobs.credentials,
      reconciler: upstreamReconcilerOf(runtime),
      settings: { intervalMs: 5 * MINUTE, graceMs: 10 * MINUTE },
      idle,
      fallbackBearer: OPERATOR,
    }),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  const config = loadConfig({
    DATABASE_URL: db.url,
    SEMRUSH_PROJECTS_BASE_URL: sim.url,
    SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 5).toString("base64"),
    SERENITY_AUTH_SECRET: "idle-org-background-test-secret-0123",
    // What is counted here is calls per simulated hour, not their rate: without the shared budget's
    // real-time pacing (3 background calls a second) the full-pace hours do not wait in real time
    // (the simulator's own limits are off, as in every test whose subject they are not).
    SERENITY_UPSTREAM_RATE_PER_SECOND: "0",
  });
  runtime = await openRuntime(config, createLogger({ level: "warn", destination: new LogCapture() }), {
    migrate: false,
    clock,
    // The refresh's paced waits would wait for this test to move time.
    poolRefreshPacing: { spacingMs: 0 },
  });
  workers = [worker(IDLE), worker(IDLE)];
});
afterAll(async () => {
  await runtime?.close();
  await sim?.close();
  await db?.destroy();
});

/** An org on a pool of its own with `brandCount` ready brands, each on its own sub-workspace. */
async function orgWithBrands(
  name: string,
  brandCount: number,
): Promise<{ id: string; workspaces: string[] }> {
  const id = randomUUID();
  const parent = await sim.addParent({ title: `${name} parent`, projects: 40, prompts: 4000 });
  const now = clock.now();
  await runtime.database.db
    .insert(orgs)
    .values({ id, name, parentWorkspaceId: parent, createdAt: now, updatedAt: now });
  const workspaces = [parent];
  for (let index = 0; index < brandCount; index++) {
    const workspace = await runtime.gateway.users.createSubWorkspace(ADMIN, parent, {
      title: `${name} brand ${index}`,
      resources: { projects: 1, prompts: 100 },
    });
    workspaces.push(workspace.id);
    await runtime.database.db.insert(brands).values({
      orgId: id,
      name: `${name} brand ${index}`,
      status: "active",
      subWorkspaceId: workspace.id,
      provisioningStatus: "ready",
      createdAt: now,
      updatedAt: now,
    });
  }
  return { id, workspaces };
}

/** One tick of every worker at once, after the clock moved one tick. */
async function tick(): Promise<void> {
  clock.advance(TICK_MS);
  const reports = await Promise.all(
    workers.flatMap(({ sampler, schedule }) => [
      sampler.sampleAll(undefined, { periodMs: SAMPLE_EVERY_MS }),
      schedule.runDue(),
    ]),
  );
  for (const report of reports) {
    if ("sampled" in report) samples += report.sampled;
    else for (const run of report.ran) reconciled.set(run.orgId, (reconciled.get(run.orgId) ?? 0) + 1);
  }
}

async function runFor(ms: number): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += TICK_MS) await tick();
}

/** The calls the simulator logged that name one of the org's workspaces (its parent or a brand's). */
async function callsOf(org: { workspaces: string[] }): Promise<number> {
  return (await sim.calls()).filter((call) => org.workspaces.some((id) => call.path.includes(id))).length;
}

function runsOf(org: { id: string }): number {
  return reconciled.get(org.id) ?? 0;
}

async function markUsed(orgId: string): Promise<void> {
  await runtime.services.orgs.getAccessible(
    { sub: "someone", orgIds: [orgId], isAdmin: false, bearer: OPERATOR },
    orgId,
  );
}

describe("an idle org's background work (docs/decisions/0042)", () => {
  let small: { id: string; workspaces: string[] };
  let large: { id: string; workspaces: string[] };

  it("costs at most 12 upstream calls an hour, sampler and reconciler of two workers together: 1 brand and 10 brands", async () => {
    small = await orgWithBrands("one brand", 1);
    large = await orgWithBrands("ten brands", 10);
    // The first reconcile run of an org measures what a run costs (1 family read, 1 project listing
    // per brand sub-workspace, 1 of the parent): nothing is recorded of it before.
    await tick();
    expect(runsOf(small)).toBe(1);
    expect(runsOf(large)).toBe(1);
    await sim.clearCalls();
    reconciled.clear();
    samples = 0;

    await runFor(HOUR);
    // 1 brand: 3 calls a run, so one run every 15 minutes; 10 brands: 12 calls a run, one an hour.
    expect(await callsOf(small)).toBe(12);
    expect(runsOf(small)).toBe(4);
    expect(await callsOf(large)).toBe(12);
    expect(runsOf(large)).toBe(1);
    // Idle: never sampled.
    expect(samples).toBe(0);

    // And so on, hour after hour.
    await sim.clearCalls();
    await runFor(HOUR);
    expect(await callsOf(small)).toBe(12);
    expect(await callsOf(large)).toBe(12);
  }, 180_000);

  it("a view brings the org's passes back to full pace; an hour after the last one they come back down", async () => {
    await sim.clearCalls();
    reconciled.clear();
    samples = 0;
    // Someone looks at the org (any org-scoped call marks it, at most once a minute per process).
    await markUsed(small.id);
    await runFor(HOUR - TICK_MS);
    // Full pace, once, not once per worker: a sample a minute and a run every 5 minutes (the first
    // of each due at once, their periods having passed long ago).
    expect(samples).toBeGreaterThanOrEqual(59);
    expect(samples).toBeLessThanOrEqual(60);
    // (11 or 12 in these 59:45, by where the last idle run fell)
    expect(runsOf(small)).toBeGreaterThanOrEqual(11);
    expect(runsOf(small)).toBeLessThanOrEqual(12);
    // The idle org beside it stays idle.
    expect(runsOf(large)).toBeLessThanOrEqual(1);
    expect(await callsOf(small)).toBeGreaterThan(12 * 3);

    // Past the threshold with no other call, it is idle again: at most 12 calls in the next hour.
    await runFor(2 * TICK_MS);
    await sim.clearCalls();
    reconciled.clear();
    samples = 0;
    await runFor(HOUR);
    expect(samples).toBe(0);
    expect(await callsOf(small)).toBeLessThanOrEqual(12);
  }, 180_000);

  it("a failed job brings the reconciler back to full pace (a failure can leave orphans)", async () => {
    // The ten-brand org has been idle through the two hours above (at most a run an hour, the
    // first case shows it), so its reconciler is at the idle pace when the failure comes.
    await sim.clearCalls();
    reconciled.clear();
    // A job of the org failed (what a crashed provisioning or market create may leave upstream).
    await runtime.database.db.insert(jobs).values({
      id: randomUUID(),
      type: "provisionWorkspace",
      orgId: large.id,
      status: "FAILED",
      error: { code: "upstreamUnavailable", message: "failed", retryable: false },
      createdAt: new Date(clock.now().getTime() - 10 * MINUTE),
      updatedAt: clock.now(),
    });
    await runFor(20 * MINUTE);
    // Every 5 minutes (the first at once), where idle it ran once an hour: an orphan the failure
    // left is seen within a period.
    expect(runsOf(large)).toBeGreaterThanOrEqual(4);
    expect(runsOf(large)).toBeLessThanOrEqual(5);
  }, 180_000);
});
