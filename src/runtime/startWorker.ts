import { DEFAULT_POOL_SAMPLE_INTERVAL_MS, PoolSampler } from "../allocation/poolSampler.ts";
import { durationMs } from "../config/flags.ts";
import type { AnyJobHandler } from "../jobs/handler.ts";
import { createPgBossQueue } from "../jobs/queue.ts";
import { JobRegistry } from "../jobs/registry.ts";
import { JobWorker, type JobWorkerOptions } from "../jobs/worker.ts";
import {
  UpstreamReconcileSchedule,
  upstreamReconcileSettings,
} from "../operations/upstreamReconcileSchedule.ts";
import { staleAttemptsStep } from "../provisioning/staleAttemptsStep.ts";
import type { Runtime } from "./runtime.ts";
import { upstreamReconcilerOf } from "./upstreamReconcilerOf.ts";

export interface StartWorkerOptions extends JobWorkerOptions {
  /** Defaults to every handler registered in `runtime.services.jobs.registry`. */
  handlers?: AnyJobHandler[];
  /**
   * Cadence of the allocation pool sampler (spec/allocation.md §8); 0 disables it. Default:
   * SERENITY_POOL_SAMPLE_INTERVAL_MS, else 60 s.
   */
  poolSampleIntervalMs?: number;
  /**
   * Period of the upstream reconciler (spec/provisioning.md §9); 0 disables it. Default:
   * SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS, else 5 min.
   */
  upstreamReconcileIntervalMs?: number;
}

/**
 * Runs the job worker inside a runtime (`serenity worker`, `serve --with-worker`, `start`). The
 * worker gets its own pg-boss instance with maintenance on (expiring messages of crashed workers),
 * over the runtime's connection pool. Call `stop()` before closing the runtime.
 */
export async function startWorker(runtime: Runtime, options: StartWorkerOptions = {}): Promise<JobWorker> {
  const jobs = runtime.services.jobs;
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
      // Every process that runs jobs (worker, serve --with-worker, start) reconciles the same way.
      reconcileSteps: [staleAttemptsStep({ events: runtime.events }), ...(options.reconcileSteps ?? [])],
    },
  );
  await worker.start();
  // The pool sampler reads upstream, which reconcile steps must not, so it has its own timer
  // beside the worker's and stops with it.
  const sampleEveryMs =
    options.poolSampleIntervalMs ??
    durationMs("SERENITY_POOL_SAMPLE_INTERVAL_MS", DEFAULT_POOL_SAMPLE_INTERVAL_MS);
  if (sampleEveryMs > 0) {
    const sampler = new PoolSampler({
      db: runtime.database.db,
      clock: runtime.clock,
      logger: runtime.logger,
      credentials: jobs.credentials,
      allocation: runtime.services.allocation,
    });
    sampler.start(sampleEveryMs);
    const stopJobs = worker.stop.bind(worker);
    worker.stop = async () => {
      await sampler.stop();
      await stopJobs();
    };
  }
  const settings = upstreamReconcileSettings();
  if (options.upstreamReconcileIntervalMs !== undefined)
    settings.intervalMs = options.upstreamReconcileIntervalMs;
  if (settings.intervalMs > 0) {
    const schedule = new UpstreamReconcileSchedule({
      db: runtime.database.db,
      clock: runtime.clock,
      logger: runtime.logger,
      events: runtime.events,
      credentials: jobs.credentials,
      settings,
      reconciler: upstreamReconcilerOf(runtime),
      fallbackBearer: process.env.SERENITY_UPSTREAM_TOKEN?.trim() || undefined,
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
