import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";

import { sql } from "drizzle-orm";
import pg from "pg";
import PgBoss from "pg-boss";

import type { DbExecutor } from "../db/database.ts";
import { assertQueueSchemaName } from "../db/jobs/queueSchemaName.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * The job queue adapter: pg-boss 10 on our PostgreSQL, carrying only `{jobId}`. The record in our
 * `jobs` table is the source of truth; a message is just "look at this job now". Messages are
 * acknowledged (`complete`) by the runner once the record reflects the delivery, or `fail`ed so
 * pg-boss redelivers them when the runner could not even reach the record.
 */

export const DEFAULT_QUEUE_SCHEMA = "pgboss";
export const DEFAULT_QUEUE_NAME = "serenity-jobs";
/** Arbitrary but fixed: the advisory lock that serialises queue starts across processes. */
const QUEUE_START_LOCK_KEY = 4_242_017;

export interface QueueMessage {
  /** The pg-boss message id (not the job id). */
  id: string;
  /** `undefined` when the payload is not ours (acknowledged and dropped). */
  jobId: string | undefined;
  /** When the message became deliverable (for queue lag). */
  availableAt: Date;
}

/** pg-boss fetches higher priorities first (then oldest first); new work has 0. */
const CONTINUATION_PRIORITY = 1;

export interface EnqueueOptions {
  /** Deliver no earlier than this many milliseconds from now. */
  delayMs?: number;
  /**
   * At most one message per key, ever: the message id is derived from it, so a second enqueue
   * with the same key is a no-op (returns null). Use keys that name one intended delivery.
   */
  singletonKey?: string;
  /** Join the caller's transaction: the message exists only if the transaction commits. */
  db?: DbExecutor;
  /**
   * Work already under way (a requeue, a chained hop, a retry): fetched before new work that is
   * due at the same time, so started lineages finish before more begin and a burst's later hops
   * do not wait behind every first hop for a free handler.
   */
  continuation?: boolean;
}

export interface JobQueue {
  readonly schema: string;
  readonly name: string;
  /**
   * Installs pg-boss's schema and our queue (idempotent, safe across processes). Call it at boot,
   * before the process listens or fetches: it needs connections of its own, so it must never run
   * lazily inside a caller's transaction (a burst of such transactions deadlocks the pool).
   */
  start(): Promise<void>;
  /** Fails with QueueNotStarted before `start()` has finished: enqueueing never starts the queue. */
  enqueue(jobId: string, options?: EnqueueOptions): Promise<string | null>;
  fetch(batchSize: number): Promise<QueueMessage[]>;
  complete(message: QueueMessage): Promise<void>;
  fail(message: QueueMessage): Promise<void>;
  /** Runs `listener` when a message may have become available (local enqueues, or NOTIFY). */
  onAvailable(listener: () => void): () => void;
  /** The NOTIFY channel enqueues signal on (a worker LISTENs on it to wake at once). */
  readonly notifyChannel: string;
  /** Tells local listeners a message may be available. */
  signalAvailable(): void;
  /**
   * Holds one dedicated connection LISTENing on the channel, so enqueues from any process wake
   * this one's `onAvailable` listeners at once. Best effort: a failure only logs (polling remains).
   * Resolves to the function that stops listening.
   */
  listenForEnqueues(): Promise<() => Promise<void>>;
  stop(): Promise<void>;
}

export interface PgBossQueueOptions {
  pool: pg.Pool;
  logger: Logger;
  schema?: string;
  name?: string;
  /** Run pg-boss maintenance (expire abandoned active messages, archive): workers only. */
  supervise?: boolean;
  /** How long an active message may stay unacknowledged before pg-boss retries it (crash net). */
  expireInSeconds?: number;
}

/**
 * pg-boss's executor over a Drizzle handle, so a send can join one of our transactions. pg-boss
 * reuses a parameter under different casts (`$5` as text and as timestamptz), which only works
 * with its own numbering, so the SQL goes to the handle's pg client as is. Drizzle keeps that
 * client on the handle's session (the transaction's connection inside a transaction).
 */
function executorFor(db: DbExecutor): PgBoss.Db {
  const client = (db as unknown as { session?: { client?: Pick<pg.PoolClient, "query"> } }).session?.client;
  if (!client || typeof client.query !== "function") {
    throw new Error("The database handle does not expose its pg client; cannot enqueue in its transaction.");
  }
  return { executeSql: (text, values) => client.query(text, values) };
}

/** An enqueue before the queue's start at boot: a wiring mistake, never waited out. */
export class QueueNotStarted extends Error {
  constructor() {
    super("The job queue was not started: call queue.start() at boot, before serving or enqueueing.");
    this.name = "QueueNotStarted";
  }
}

/** A v4-shaped UUID derived from a key: the same key always names the same message. */
export function messageIdFor(key: string): string {
  const hex = createHash("sha256").update(`serenity-message:${key}`).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function createPgBossQueue(options: PgBossQueueOptions): JobQueue {
  const schema = assertQueueSchemaName(options.schema ?? DEFAULT_QUEUE_SCHEMA);
  const name = options.name ?? DEFAULT_QUEUE_NAME;
  const notifyChannel = `serenity_jobs_${schema}`;
  const wakeups = new EventEmitter();
  wakeups.setMaxListeners(100);
  const boss = new PgBoss({
    db: { executeSql: (text, values) => options.pool.query(text, values) },
    schema,
    supervise: options.supervise ?? false,
    schedule: false,
    migrate: true,
  });
  // pg-boss reports maintenance failures as events; an unheard "error" would crash the process.
  boss.on("error", (error) => options.logger.warn({ err: error }, "job queue maintenance error"));

  let starting: Promise<void> | undefined;
  let started = false;
  const start = () => {
    starting ??= (async () => {
      // Processes starting together (several `serve` and `worker` at boot) run pg-boss's schema
      // and queue creation one at a time: run side by side, they can deadlock in PostgreSQL. The
      // lock is held on a connection of its own, outside the pool, as migrations do.
      const lock = new pg.Client(options.pool.options);
      await lock.connect();
      try {
        await lock.query("select pg_advisory_lock($1)", [QUEUE_START_LOCK_KEY]);
        await boss.start();
        await boss.createQueue(name, {
          name,
          policy: "standard",
          retryLimit: 5,
          retryDelay: 5,
          retryBackoff: true,
          expireInSeconds: options.expireInSeconds ?? 15 * 60,
        });
      } finally {
        await lock.end().catch(() => {});
      }
      started = true;
    })().catch((error: unknown) => {
      starting = undefined;
      throw error;
    });
    return starting;
  };

  return {
    schema,
    name,
    notifyChannel,
    start,
    async enqueue(jobId, enqueueOptions = {}) {
      // Never `await start()` here: a caller inside a transaction would hold its connection while
      // the start waits for another one from the same pool.
      if (!started) throw new QueueNotStarted();
      const db = enqueueOptions.db;
      const delaySeconds = (enqueueOptions.delayMs ?? 0) / 1000;
      const messageId = await boss.send(
        name,
        { jobId },
        {
          ...(delaySeconds > 0 ? { startAfter: delaySeconds } : {}),
          ...(enqueueOptions.continuation ? { priority: CONTINUATION_PRIORITY } : {}),
          ...(enqueueOptions.singletonKey ? { id: messageIdFor(enqueueOptions.singletonKey) } : {}),
          ...(db ? { db: executorFor(db) } : {}),
        },
      );
      // NOTIFY is transactional: inside a caller's transaction it is delivered only at commit.
      const notify = sql`select pg_notify(${notifyChannel}, '')`;
      if (db) await db.execute(notify);
      else {
        await options.pool.query("select pg_notify($1, '')", [notifyChannel]);
        wakeups.emit("available");
      }
      return messageId;
    },
    async fetch(batchSize) {
      await start();
      const jobs = await boss.fetch<{ jobId?: unknown }>(name, { batchSize, includeMetadata: true });
      return jobs.map((job) => ({
        id: job.id,
        jobId: typeof job.data?.jobId === "string" ? job.data.jobId : undefined,
        availableAt: new Date(job.startAfter),
      }));
    },
    async complete(message) {
      await boss.complete(name, message.id);
    },
    async fail(message) {
      await boss.fail(name, message.id);
    },
    onAvailable(listener) {
      wakeups.on("available", listener);
      return () => wakeups.off("available", listener);
    },
    signalAvailable() {
      wakeups.emit("available");
    },
    async listenForEnqueues() {
      let client: pg.PoolClient | undefined;
      try {
        const connected = await options.pool.connect();
        connected.on("notification", () => wakeups.emit("available"));
        connected.on("error", (error) => {
          // After the stop the client is back in the pool; releasing it again would throw.
          if (client !== connected) return;
          client = undefined;
          options.logger.warn({ err: error }, "job wake-up connection lost; polling only");
          connected.release(error);
        });
        await connected.query(`LISTEN "${notifyChannel}"`);
        client = connected;
      } catch (error) {
        options.logger.warn({ err: error }, "could not listen for job wake-ups; polling only");
      }
      return async () => {
        const listening = client;
        client = undefined;
        if (!listening) return;
        await listening.query(`UNLISTEN "${notifyChannel}"`).catch(() => {});
        listening.release();
      };
    },
    async stop() {
      // A start still running would mark a stopped queue started: let it finish first.
      if (starting) await starting.catch(() => {});
      if (starting) await boss.stop({ graceful: false, wait: true, close: false });
      starting = undefined;
      started = false;
    },
  };
}
