import { durationMs } from "../config/flags.ts";
import { purgeCredentials } from "../db/credentials/purgeCredentials.ts";
import type { DbExecutor } from "../db/database.ts";
import { readDatabaseNow } from "../db/databaseTime.ts";
import { failStalledJob } from "../db/jobs/failStalledJob.ts";
import { findStalledJobs } from "../db/jobs/findStalledJobs.ts";
import { purgeTerminalJobs } from "../db/jobs/purgeTerminalJobs.ts";
import { tryReconcilerLock } from "../db/jobs/tryReconcilerLock.ts";
import { purgeWorkerHeartbeats } from "../db/workerHeartbeats/purgeWorkerHeartbeats.ts";
import type { Logger } from "../observability/logger.ts";
import type { JobSystemDeps } from "./jobSystemDeps.ts";

export const DEFAULT_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** A lease this long past its expiry (or an unleased record this long untouched) is stalled. */
export const DEFAULT_STALL_GRACE_MS = 2 * 60 * 1000;
const HEARTBEAT_RETENTION_MS = 24 * 60 * 60 * 1000;
const STALLED_BATCH = 500;

/**
 * An extra reconcile step (e.g. provisioning's "fail stale pending attempts"). It runs inside the
 * reconciler's transaction (under a savepoint: a failing step is rolled back and logged alone),
 * so it must only touch the database — never call upstream from here.
 */
export type ReconcileStep = (context: {
  db: DbExecutor;
  now: Date;
  logger: Logger;
}) => Promise<Record<string, number> | void>;

export interface ReconcileReport {
  skipped: boolean;
  stuck: Record<string, number>;
  redelivered: number;
  failed: number;
  purged: number;
  steps: Record<string, Record<string, number> | "failed" | "ok">;
}

export interface JobReconcilerDeps extends JobSystemDeps {
  /** Defaults read per run: SERENITY_JOB_STALL_GRACE_MS, SERENITY_JOB_RETENTION_MS. */
  stallGraceMs?: number;
  retentionMs?: number;
  env?: Record<string, string | undefined>;
}

/**
 * The scheduled reconciler (every SERENITY_JOB_RECONCILE_INTERVAL_MS, 60 s by default, on every
 * worker): re-delivers IN_PROGRESS records that nothing is working on and nothing will deliver, or
 * fails them `JOB_STALLED` once their attempts are spent; purges terminal records after the
 * retention; runs the registered extra steps. One transaction under a try-advisory lock: with many
 * workers, one reconciles and the rest skip.
 */
export class JobReconciler {
  readonly #deps: JobReconcilerDeps;
  readonly #steps: { name: string; step: ReconcileStep }[] = [];

  constructor(deps: JobReconcilerDeps) {
    this.#deps = deps;
  }

  addStep(name: string, step: ReconcileStep): this {
    this.#steps.push({ name, step });
    return this;
  }

  async run(): Promise<ReconcileReport> {
    const { db, clock, logger, registry, queue, credentials, env } = this.#deps;
    const stallGraceMs =
      this.#deps.stallGraceMs ?? durationMs("SERENITY_JOB_STALL_GRACE_MS", DEFAULT_STALL_GRACE_MS, env);
    const retentionMs =
      this.#deps.retentionMs ?? durationMs("SERENITY_JOB_RETENTION_MS", DEFAULT_JOB_RETENTION_MS, env);
    await queue.start();

    const report = await db.transaction(async (tx): Promise<ReconcileReport> => {
      const empty: ReconcileReport = {
        skipped: true,
        stuck: {},
        redelivered: 0,
        failed: 0,
        purged: 0,
        steps: {},
      };
      if (!(await tryReconcilerLock(tx))) return empty;
      // Stalled, stale and expired are judged on the database's clock (a test's hand-driven time,
      // if any): the lease expiries and updates compared with were stamped by other processes.
      const databaseTime = clock.databaseTime?.();
      const now = await readDatabaseNow(tx, databaseTime);
      const result: ReconcileReport = { ...empty, skipped: false };

      const stalled = await findStalledJobs(tx, {
        stallGraceMs,
        now: databaseTime,
        queueSchema: queue.schema,
        queueName: queue.name,
        limit: STALLED_BATCH,
      });
      for (const job of stalled) {
        result.stuck[job.type] = (result.stuck[job.type] ?? 0) + 1;
        if (job.attempts < registry.maxAttemptsOf(job.type)) {
          // Keyed per minute: a second reconciler racing this one cannot double the delivery.
          const minute = Math.floor(now.getTime() / 60_000);
          await queue.enqueue(job.id, {
            db: tx,
            singletonKey: `reconcile:${job.id}:${job.attempts}:${minute}`,
          });
          result.redelivered += 1;
          continue;
        }
        const failed = await failStalledJob(tx, {
          jobId: job.id,
          stallGraceMs,
          now: databaseTime,
          error: { code: "JOB_STALLED", message: registry.messageFor("JOB_STALLED")!, retryable: false },
        });
        if (failed) {
          if (failed.credentialId && !failed.nextJobId)
            await credentials.invalidate(failed.credentialId, { db: tx });
          result.failed += 1;
        }
      }

      const purgeBefore = new Date(now.getTime() - retentionMs);
      result.purged = await purgeTerminalJobs(tx, purgeBefore);
      await purgeCredentials(tx, purgeBefore);
      await purgeWorkerHeartbeats(tx, new Date(now.getTime() - HEARTBEAT_RETENTION_MS));

      for (const { name, step } of this.#steps) {
        try {
          const counts = await tx.transaction((savepoint) => step({ db: savepoint, now, logger }));
          result.steps[name] = counts ?? "ok";
        } catch (error) {
          logger.error({ err: error, step: name }, "reconcile step failed");
          result.steps[name] = "failed";
        }
      }
      return result;
    });

    if (!report.skipped) {
      this.#deps.events.emit("job.reconciled", {
        stuck: report.stuck,
        redelivered: report.redelivered,
        failed: report.failed,
        purged: report.purged,
      });
      if (report.redelivered || report.failed || report.purged) logger.info({ ...report }, "jobs reconciled");
    }
    return report;
  }
}
