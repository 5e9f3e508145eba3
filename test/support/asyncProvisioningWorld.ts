import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";

import { findJob } from "../../src/db/jobs/findJob.ts";
import type { JobRow } from "../../src/db/jobs/jobRow.ts";
import type { JobQueue } from "../../src/jobs/queue.ts";
import { JobWorker } from "../../src/jobs/worker.ts";
import type { ServiceEvents } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { PARENT, type ProvisioningWorld, pumping, startProvisioningWorld } from "./provisioningWorld.ts";

/**
 * The asynchronous provisioning suites' world: the brands world (app + real gateway client over
 * HTTP to the simulator, ManualClock) plus a job worker on the app's own registry, queue and
 * credential store, driven by hand (`pollOnce`, `drain`) — never by sleeping. Requeue delays
 * are pg-boss `startAfter` times: `makeDue` moves them to now, the queue's notion of time passing.
 */
export interface AsyncProvisioningWorld extends ProvisioningWorld {
  worker: JobWorker;
  /** Set to make every enqueue from the worker's hand-offs fail (a queue outage). */
  failEnqueues: { value: boolean };
  attempts: ServiceEvents["provisioning.attempt"]["outcome"][];
  /** One fetch round; the clock is pumped while it runs when `pump` is set (handlers that back off). */
  pollOnce(options?: { pump?: boolean }): Promise<number>;
  /** Rounds until nothing is deliverable, making delayed messages due between rounds (bounded). */
  drain(maxRounds?: number): Promise<void>;
  makeDue(): Promise<void>;
  job(jobId: string): Promise<JobRow>;
  /** The successor chain of a job, first first. */
  lineage(jobId: string): Promise<JobRow[]>;
  /** Pending queue messages of a job, with how far in the future (ms) they become deliverable. */
  pendingDelays(jobId: string): Promise<number[]>;
  poll(
    brandId: string,
    jobId: string,
  ): Promise<{ status: number; body: Record<string, unknown> & { status?: string } }>;
  brandsUrl(): string;
  setSettings(settings: Record<string, unknown>): Promise<void>;
  projectsOf(workspaceId: string): Promise<number>;
}

export async function startAsyncProvisioningWorld(
  app: Parameters<typeof startProvisioningWorld>[0] = {},
): Promise<AsyncProvisioningWorld> {
  const world = await startProvisioningWorld(app);
  const { t, clock } = world;
  const jobs = t.services.jobs;
  const failEnqueues = { value: false };
  const queue: JobQueue = {
    ...jobs.queue,
    start: () => jobs.queue.start(),
    fetch: (batchSize) => jobs.queue.fetch(batchSize),
    complete: (message) => jobs.queue.complete(message),
    fail: (message) => jobs.queue.fail(message),
    onAvailable: (listener) => jobs.queue.onAvailable(listener),
    signalAvailable: () => jobs.queue.signalAvailable(),
    stop: () => jobs.queue.stop(),
    enqueue: async (jobId, options) => {
      if (failEnqueues.value) throw new Error("queue unavailable (test)");
      return jobs.queue.enqueue(jobId, options);
    },
  };
  await queue.start();
  const worker = new JobWorker(
    {
      db: t.db.db,
      clock,
      // Lines land in `t.logs`, with the app's, for the suites' leak scans.
      logger: createLogger({ level: "debug", destination: t.logs }),
      events: t.events,
      registry: jobs.registry,
      queue,
      credentials: jobs.credentials,
    },
    { listen: false, reconcileIntervalMs: 0 },
  );
  const attempts: AsyncProvisioningWorld["attempts"] = [];
  t.events.on("provisioning.attempt", ({ outcome }) => attempts.push(outcome));

  const makeDue = async () => {
    await t.db.db.execute(
      sql`update pgboss.job set start_after = now() - interval '1 second' where state < 'active'`,
    );
  };
  const pollOnce = (options: { pump?: boolean } = {}) =>
    options.pump ? pumping(clock, worker.pollOnce(), 100) : worker.pollOnce();

  const asyncWorld: AsyncProvisioningWorld = Object.assign(world, {
    worker,
    failEnqueues,
    attempts,
    pollOnce,
    makeDue,
    async drain(maxRounds = 60) {
      for (let round = 0; round < maxRounds; round++) {
        await makeDue();
        if ((await worker.pollOnce()) === 0) {
          await makeDue();
          if ((await worker.pollOnce()) === 0) return;
        }
      }
      throw new Error("the queue did not drain");
    },
    async job(jobId: string) {
      const row = await findJob(t.db.db, jobId);
      if (!row) throw new Error(`job ${jobId} not found`);
      return row;
    },
    async lineage(jobId: string) {
      const rows: JobRow[] = [];
      for (let id: string | null = jobId; id;) {
        const row: JobRow | undefined = await findJob(t.db.db, id);
        if (!row) break;
        rows.push(row);
        id = row.nextJobId;
      }
      return rows;
    },
    async pendingDelays(jobId: string) {
      const result = await t.db.db.execute<{ delay_ms: string }>(
        sql`select extract(epoch from (start_after - created_on)) * 1000 as delay_ms from pgboss.job where data->>'jobId' = ${jobId} and state < 'active'`,
      );
      return result.rows.map((row) => Number(row.delay_ms));
    },
    async poll(brandId: string, jobId: string) {
      const response = await world.call(
        "GET",
        `/v2/orgs/${world.orgId}/brands/${brandId}/serenity/jobs/${jobId}`,
      );
      return { status: response.status, body: response.body };
    },
    brandsUrl: () => `/v2/orgs/${world.orgId}/brands`,
    async setSettings(settings: Record<string, unknown>) {
      await world.sim.control("/settings", settings);
    },
    async projectsOf(workspaceId: string) {
      return (await world.sim.dump()).projects.filter((project) => project.workspace_id === workspaceId)
        .length;
    },
  });
  const close = world.close;
  asyncWorld.close = async () => {
    await worker.stop();
    await close();
  };
  return asyncWorld;
}

export { PARENT };

/**
 * The lifecycle the asynchronous provisioning suites share: one world per file, and before each
 * test no faults, working enqueues, no recorded attempt outcomes, nothing left to deliver and an
 * empty call log (`settings`, when given, is applied first, so leftovers run under it).
 */
export function useAsyncProvisioningWorld(
  receive: (world: AsyncProvisioningWorld) => void,
  options: { settings?: Record<string, unknown> } = {},
): void {
  let world: AsyncProvisioningWorld;
  beforeAll(async () => {
    world = await startAsyncProvisioningWorld();
    receive(world);
  });
  afterAll(() => world.close());
  beforeEach(async () => {
    await world.sim.control("/faults", undefined, "DELETE");
    if (options.settings) await world.setSettings(options.settings);
    world.failEnqueues.value = false;
    world.attempts.length = 0;
    await world.drain();
    await world.sim.clearCalls();
  });
}

/** The workspace id in a brand row's pointer, asserting there is one. */
export function pointerOf(brand: { subWorkspaceId: string | null }): string {
  expect(brand.subWorkspaceId).not.toBeNull();
  return brand.subWorkspaceId!;
}
