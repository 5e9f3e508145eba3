import { idleBudgetAccountsStep } from "../budget/idleAccountsStep.ts";
import { workerPoolRule } from "../config/env.ts";
import { expiredKeysStep } from "../idempotency/expiredKeysStep.ts";
import type { AnyJobHandler } from "../jobs/handler.ts";
import { createPgBossQueue } from "../jobs/queue.ts";
import { JobRegistry } from "../jobs/registry.ts";
import { JobWorker, type JobWorkerOptions } from "../jobs/worker.ts";
import { UpstreamReconcileSchedule } from "../operations/upstreamReconcileSchedule.ts";
import { expiredPoolSamplesStep } from "../poolView/expiredSamplesStep.ts";
import { PoolSampler } from "../poolView/poolSampler.ts";
import { staleAttemptsStep } from "../subWorkspaces/staleAttemptsStep.ts";
import type { Runtime } from "./runtime.ts";
import { upstreamReconcilerOf } from "./upstreamReconcilerOf.ts";

export interface StartWorkerOptions extends JobWorkerOptions {
  /** Defaults to every handler registered in `runtime.services.jobs.registry`. */
  handlers?: AnyJobHandler[];
  /**
   * Cadence of the allocation pool sampler (spec/allocation.md §8); 0 disables it. Default:
   * SERENITY_POOL_SAMPLE_INTERVAL_MS (runtime.config.worker), else 60 s.
   */
  poolSampleIntervalMs?: number;
  /**
   * Period of the upstream reconciler (spec/provisioning.md §9); 0 disables it. Default:
   * SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS (runtime.config.worker), else 5 min.
   */
  upstreamReconcileIntervalMs?: number;
}

/**
 * Runs the job worker inside a runtime (`serenity worker`, `serve --with-worker`, `start`). The
 * worker gets its own pg-boss instance with maintenance on (expiring messages of crashed workers),
 * over the runtime's connection pool. Call `stop()` before closing the runtime. Its settings come
 * from the runtime's Config (read and checked once at boot, src/config/env.ts), never from
 * process.env here; options, for tests and tools, win over them.
 */
export async function startWorker(runtime: Runtime, options: StartWorkerOptions = {}): Promise<JobWorker> {
  const jobs = runtime.services.jobs;
  const settings = runtime.config.worker;
  const concurrency = options.concurrency ?? settings.concurrency;
  const poolProblem = workerPoolRule(runtime.database.stats().max, concurrency);
  if (poolProblem) throw new Error(poolProblem);
  const registry = options.handlers
    ? options.handlers.reduce((built, handler) => built.registerHandler(handler), new JobRegistry())
    : jobs.registry;
  const queue = createPgBossQueue({
    pool: runtime.database.pool,
    logger: runtime.logger,
    schema: jobs.queue.schema,
    name: jobs.queue.name,
    supervise: true,
  });
  const worker = new JobWorker(
    {
      db: runtime.database.db,
      clock: runtime.clock,
      logger: runtime.logger,
      events: runtime.events,
      registry,
      queue,
      credentials: jobs.credentials,
    },
    {
      ...options,
      concurrency,
      // SERENITY_JOB_RECONCILE_INTERVAL_MS: stall recovery within the stall grace + this period.
      reconcileIntervalMs: options.reconcileIntervalMs ?? settings.jobReconcileIntervalMs,
      // Every process that runs jobs (worker, serve --with-worker, start) reconciles the same way.
      reconcileSteps: [
        staleAttemptsStep({ events: runtime.events }),
        expiredKeysStep(),
        idleBudgetAccountsStep(),
        expiredPoolSamplesStep(() => runtime.services.poolHistory.retentionMs()),
        ...(options.reconcileSteps ?? []),
      ],
    },
  );
  await worker.start();
  // The pool sampler reads upstream, which reconcile steps must not, so it has its own timer
  // beside the worker's and stops with it.
  const sampleEveryMs = options.poolSampleIntervalMs ?? settings.poolSampleIntervalMs;
  if (sampleEveryMs > 0) {
    const sampler = new PoolSampler({
      db: runtime.database.db,
      clock: runtime.clock,
      logger: runtime.logger,
      credentials: jobs.credentials,
      poolView: runtime.services.poolView,
      events: runtime.events,
      operatorBearer: runtime.config.upstreamTokens,
      idle: settings.idleOrgs,
    });
    sampler.start(sampleEveryMs);
    const stopJobs = worker.stop.bind(worker);
    worker.stop = async () => {
      await sampler.stop();
      await stopJobs();
    };
  }
  const reconcile = {
    ...settings.upstreamReconcile,
    intervalMs: options.upstreamReconcileIntervalMs ?? settings.upstreamReconcile.intervalMs,
  };
  if (reconcile.intervalMs > 0) {
    const schedule = new UpstreamReconcileSchedule({
      db: runtime.database.db,
      clock: runtime.clock,
      logger: runtime.logger,
      events: runtime.events,
      credentials: jobs.credentials,
      settings: reconcile,
      idle: settings.idleOrgs,
      reconciler: upstreamReconcilerOf(runtime),
      fallbackBearer: runtime.config.upstreamTokens,
    });
    schedule.start();
    const stopRest = worker.stop.bind(worker);
    worker.stop = async () => {
      await schedule.stop();
      await stopRest();
    };
  }
  return worker;
}
