import { sql } from "drizzle-orm";

import { ephemeralCredentialKey } from "../../src/credentials/credentialKey.ts";
import { CredentialStore } from "../../src/credentials/credentialStore.ts";
import { findJob } from "../../src/db/jobs/findJob.ts";
import type { JobRow } from "../../src/db/jobs/jobRow.ts";
import type { AnyJobHandler } from "../../src/jobs/handler.ts";
import { createPgBossQueue, type JobQueue } from "../../src/jobs/queue.ts";
import { JobRegistry } from "../../src/jobs/registry.ts";
import { JobWorker, type JobWorkerOptions } from "../../src/jobs/worker.ts";
import { EventBus, type ServiceEvents } from "../../src/observability/events.ts";
import { createLogger, type Logger } from "../../src/observability/logger.ts";
import type { TestDatabase } from "./database.ts";
import { LogCapture } from "./logCapture.ts";
import { ManualClock } from "./manualClock.ts";

export interface JobWorld {
  db: TestDatabase;
  clock: ManualClock;
  events: EventBus;
  logs: LogCapture;
  logger: Logger;
  registry: JobRegistry;
  queue: JobQueue;
  credentials: CredentialStore;
  finished: ServiceEvents["job.finished"][];
  worker(options?: JobWorkerOptions): JobWorker;
  job(jobId: string): Promise<JobRow>;
  /** Queue messages of a job that are still to be delivered (created or retry). */
  /** Undelivered messages of a job, with the delay each was sent with (start_after − created_on). */
  /** Queued messages of a job; `priority` 1 = fetched before new work (a continuation). */
  pendingMessages(
    jobId: string,
  ): Promise<{ id: string; startAfter: Date; delayMs: number; priority: number }[]>;
  /** Moves every delayed message to "due now": the queue's notion of time passing (no sleeping). */
  makeDue(): Promise<void>;
  close(): Promise<void>;
}

/** The job system wired by hand over a test database, with a manual clock and captured logs. */
export async function createJobWorld(
  db: TestDatabase,
  handlers: AnyJobHandler[] = [],
  options: {
    registry?: JobRegistry;
    queue?: JobQueue;
    credentials?: CredentialStore;
    clock?: ManualClock;
  } = {},
): Promise<JobWorld> {
  const clock = options.clock ?? new ManualClock();
  const events = new EventBus();
  const logs = new LogCapture();
  const logger = createLogger({ level: "debug", destination: logs });
  const registry = options.registry ?? new JobRegistry();
  for (const handler of handlers) registry.registerHandler(handler);
  const queue = options.queue ?? createPgBossQueue({ pool: db.pool, logger });
  await queue.start();
  const credentials =
    options.credentials ?? new CredentialStore({ db: db.db, clock, logger, key: ephemeralCredentialKey() });
  const finished: ServiceEvents["job.finished"][] = [];
  events.on("job.finished", (event) => finished.push(event));
  const workers: JobWorker[] = [];
  return {
    db,
    clock,
    events,
    logs,
    logger,
    registry,
    queue,
    credentials,
    finished,
    worker(workerOptions = {}) {
      // The world's queue outlives its workers (its producers keep enqueueing after a worker
      // stopped), as the API's own queue does beside a worker's in one process.
      const workerQueue: JobQueue = { ...queue, stop: async () => {} };
      const worker = new JobWorker(
        { db: db.db, clock, logger, events, registry, queue: workerQueue, credentials },
        { listen: false, reconcileIntervalMs: 0, ...workerOptions },
      );
      workers.push(worker);
      return worker;
    },
    async job(jobId) {
      const row = await findJob(db.db, jobId);
      if (!row) throw new Error(`job ${jobId} not found`);
      return row;
    },
    async pendingMessages(jobId) {
      const result = await db.db.execute<{
        id: string;
        start_after: Date;
        delay_ms: string;
        priority: number;
      }>(
        sql`select id, start_after, extract(epoch from (start_after - created_on)) * 1000 as delay_ms, priority from pgboss.job where data->>'jobId' = ${jobId} and state < 'active' order by start_after`,
      );
      return result.rows.map((row) => ({
        id: row.id,
        startAfter: new Date(row.start_after),
        delayMs: Number(row.delay_ms),
        priority: Number(row.priority),
      }));
    },
    async makeDue() {
      await db.db.execute(
        sql`update pgboss.job set start_after = now() - interval '1 second' where state < 'active'`,
      );
    },
    async close() {
      for (const worker of workers) await worker.stop();
      await queue.stop();
    },
  };
}

/** A promise with its resolver, to hold a handler at a known point. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
