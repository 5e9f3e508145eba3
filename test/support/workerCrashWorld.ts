import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { sql } from "drizzle-orm";

import { brands, jobs } from "../../src/db/schema.ts";
import { DEFAULT_STALL_GRACE_MS, JobReconciler } from "../../src/jobs/reconciler.ts";
import type { Services } from "../../src/runtime/services.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { staleAttemptsStep } from "../../src/subWorkspaces/staleAttemptsStep.ts";
import { apiProcessSide, letLeasesExpire, letLocksLapse } from "./apiProcessSide.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import type { ManualClock } from "./manualClock.ts";
import { startTestSimulator, type TestSimulator } from "./simulator.ts";
import { spawnWorker, type WorkerProcess } from "./workerProcess.ts";

/**
 * What the worker-crash tests share: a test database and a simulator (an unmetered parent), the
 * services an API process would use (so brands are created the way the API creates them), real
 * `serenity worker` processes to SIGKILL, and the observations those tests make of the database.
 */
export const PARENT = UNMETERED_PARENT_WORKSPACE_ID;

export interface WorkerCrashWorld {
  db: TestDatabase;
  sim: TestSimulator;
  services: Services;
  orgId: string;
  /** A real worker process on this world's database and simulator. */
  spawnWorker(options?: { concurrency?: number }): WorkerProcess;
  /** An asynchronous brand create with a US/en market, as the API does it. */
  createBrand(name: string): Promise<{ brandId: string; jobId: string }>;
  /** A reconciler (with provisioning's stale-attempt step) whose clock is `clock`. */
  reconcilerAt(clock: ManualClock): JobReconciler;
  /**
   * Time passing for dead workers' claims, by UPDATE instead of sleeping: their leases (5 min)
   * and their pg-boss messages' expiry (15 min) move an hour into the past. Call it only while no
   * worker runs, so every lease it moves belongs to a dead process.
   */
  letLeasesExpire(): Promise<void>;
  /**
   * Moves every held job lease's expiry to `ms` before `at` (the instant the test then gives its
   * reconciler, whatever time passes meanwhile), and lets the dead workers' brand leases and
   * allocation locks lapse (messages stay as they are).
   */
  expireLeasesAgo(ms: number, at: Date): Promise<void>;
  unsettledBrands(): Promise<number>;
  liveJobs(): Promise<number>;
  close(): Promise<void>;
}

export async function startWorkerCrashWorld(
  settings: Record<string, unknown> = {},
): Promise<WorkerCrashWorld> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "serenity-crash-"));
  const db = await createTestDatabase();
  const sim = await startTestSimulator({ seed: "unmetered" });
  await sim.control("/settings", settings);
  const side = apiProcessSide(db, sim.url, { dynamicAllocation: false });
  const { services, events, logger } = side;
  const { orgId, createBrand } = await side.orgWithUser("Crash org", PARENT);
  const count = async (query: ReturnType<typeof sql>) =>
    (await db.db.execute<{ n: number }>(query)).rows[0]!.n;

  return {
    db,
    sim,
    services,
    orgId,
    spawnWorker: (options = {}) => spawnWorker(side.workerEnv(dataDir), options),
    createBrand: (name) => createBrand(name),
    reconcilerAt(clock) {
      const reconciler = new JobReconciler({
        db: db.db,
        clock,
        logger,
        events,
        registry: services.jobs.registry,
        queue: services.jobs.queue,
        credentials: services.jobs.credentials,
        stallGraceMs: DEFAULT_STALL_GRACE_MS,
      });
      const step = staleAttemptsStep({ events });
      return reconciler.addStep(step.name, step.step);
    },
    letLeasesExpire: () => letLeasesExpire(db),
    async expireLeasesAgo(ms, at) {
      const expiresAt = new Date(at.getTime() - ms);
      await db.db.execute(
        sql`update ${jobs} set lease_expires_at = ${expiresAt.toISOString()}::timestamptz where status = 'IN_PROGRESS' and lease_token is not null`,
      );
      await letLocksLapse(db);
    },
    unsettledBrands: () =>
      count(
        sql`select count(*)::int as n from ${brands} where provisioning_status is distinct from 'ready' and provisioning_status is distinct from 'failed'`,
      ),
    liveJobs: () => count(sql`select count(*)::int as n from ${jobs} where status = 'IN_PROGRESS'`),
    async close() {
      await side.gateway.close();
      await sim.close();
      await db.destroy();
    },
  };
}

/**
 * Polls `probe` until it returns a value. The deadline is a hang guard only: past it the wait
 * throws, naming `what` was awaited, instead of letting a later assertion fail for a wrong reason.
 */
export async function observe<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  deadlineMs = 180_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not observed within ${deadlineMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
