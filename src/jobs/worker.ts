import { randomUUID } from "node:crypto";
import os from "node:os";

import { deleteWorkerHeartbeat } from "../db/workerHeartbeats/deleteWorkerHeartbeat.ts";
import { upsertWorkerHeartbeat } from "../db/workerHeartbeats/upsertWorkerHeartbeat.ts";
import { type PeriodicLoop, startPeriodic } from "../domain/periodic.ts";
import type { JobSystemDeps } from "./jobSystemDeps.ts";
import { JobReconciler, type ReconcileStep } from "./reconciler.ts";
import { JobRunner } from "./runner.ts";

export type JobWorkerDeps = JobSystemDeps;

export interface JobWorkerOptions {
  workerId?: string;
  /** Handlers running at once in this process (default 10). */
  concurrency?: number;
  /** Messages fetched per round trip (default: the free slots, at most 50). */
  batchSize?: number;
  /** Poll interval while the queue is empty and no wake-up arrives (default 500 ms). */
  idleWaitMs?: number;
  heartbeatIntervalMs?: number;
  /**
   * 0 disables the in-process reconciler timer (default 60 s; startWorker passes
   * SERENITY_JOB_RECONCILE_INTERVAL_MS).
   */
  reconcileIntervalMs?: number;
  /** How long `stop()` waits for running handlers before interrupting them (default 10 s). */
  shutdownGraceMs?: number;
  /** Extra reconcile steps (provisioning's stale attempts). */
  reconcileSteps?: { name: string; step: ReconcileStep }[];
  /** LISTEN for enqueue notifications from other processes (default true). */
  listen?: boolean;
}

/**
 * The job worker: a fetch loop over pg-boss that fetches again at once while messages keep
 * coming, runs at most `concurrency` deliveries, and otherwise waits a short idle interval or
 * until an enqueue wakes it (local event, or NOTIFY from another process). Heartbeats every ~15 s.
 *
 * The idle wait and the heartbeat/reconcile timers use real time on purpose: they are polling
 * cadence, not business time; leases, timeouts and backoffs all use the injected clock.
 */
export class JobWorker {
  readonly workerId: string;
  readonly runner: JobRunner;
  readonly reconciler: JobReconciler;
  readonly #deps: JobWorkerDeps;
  readonly #options: Required<Omit<JobWorkerOptions, "workerId" | "reconcileSteps" | "batchSize">> & {
    batchSize: number;
  };
  readonly #inFlight = new Set<Promise<unknown>>();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #slotFreed: (() => void) | undefined;
  #loops: PeriodicLoop[] = [];
  #stopListening: (() => Promise<void>) | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(deps: JobWorkerDeps, options: JobWorkerOptions = {}) {
    this.#deps = deps;
    this.workerId = options.workerId ?? `${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    const concurrency = options.concurrency ?? 10;
    this.#options = {
      concurrency,
      batchSize: options.batchSize ?? Math.min(concurrency, 50),
      idleWaitMs: options.idleWaitMs ?? 500,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 15_000,
      reconcileIntervalMs: options.reconcileIntervalMs ?? 60_000,
      shutdownGraceMs: options.shutdownGraceMs ?? 10_000,
      listen: options.listen ?? true,
    };
    this.runner = new JobRunner(deps);
    this.reconciler = new JobReconciler(deps);
    for (const { name, step } of options.reconcileSteps ?? []) this.reconciler.addStep(name, step);
  }

  /** True from start until a stop begins (the worker's readiness probe reports it). */
  get running(): boolean {
    return this.#running;
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  async start(): Promise<void> {
    if (this.#running) return;
    await this.#deps.queue.start();
    this.#running = true;
    await this.heartbeat();
    const { logger } = this.#deps;
    this.#loops.push(
      startPeriodic({
        everyMs: this.#options.heartbeatIntervalMs,
        pass: () => this.heartbeat(),
        onError: (error) => logger.warn({ err: error }, "worker heartbeat failed"),
      }),
    );
    if (this.#options.reconcileIntervalMs > 0) {
      this.#loops.push(
        startPeriodic({
          everyMs: this.#options.reconcileIntervalMs,
          pass: () => this.reconciler.run(),
          onError: (error) => logger.error({ err: error }, "job reconcile failed"),
        }),
      );
    }
    this.#unsubscribe = this.#deps.queue.onAvailable(() => this.#wake?.());
    if (this.#options.listen) this.#stopListening = await this.#deps.queue.listenForEnqueues();
    this.#loop = this.#run();
    this.#deps.logger.info(
      {
        workerId: this.workerId,
        jobTypes: this.#deps.registry.types(),
        concurrency: this.#options.concurrency,
      },
      "job worker started",
    );
  }

  /** True while the fetch loop waits out an idle interval (nothing was deliverable). */
  get idle(): boolean {
    return this.#wake !== undefined;
  }

  /**
   * One fetch-and-run round, awaited to the end (tests and tools drive the worker with it).
   * Returns how many messages it processed.
   */
  async pollOnce(): Promise<number> {
    const messages = await this.#deps.queue.fetch(this.#options.batchSize);
    await Promise.all(messages.map((message) => this.runner.process(message)));
    return messages.length;
  }

  /** Repeats `pollOnce` until the queue has nothing deliverable. */
  async drain(): Promise<number> {
    let total = 0;
    for (let count = await this.pollOnce(); count > 0; count = await this.pollOnce()) total += count;
    return total;
  }

  async heartbeat(): Promise<void> {
    await upsertWorkerHeartbeat(this.#deps.db, {
      workerId: this.workerId,
      jobTypes: this.#deps.registry.types(),
      now: this.#deps.clock.now(),
    }).catch((error: unknown) => this.#deps.logger.warn({ err: error }, "worker heartbeat failed"));
  }

  /**
   * Graceful shutdown: stop fetching, wait for running handlers up to the grace, then interrupt
   * the rest (their leases are released and their messages re-sent, so another worker resumes).
   */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#wake?.();
    this.#slotFreed?.();
    await this.#loop;
    // No new tick from here; a reconcile in flight is awaited below, beside the handlers' grace
    // (not before it), and before the queue and the database it writes to may close.
    const loopsStopped = Promise.all(this.#loops.map((loop) => loop.stop()));
    this.#loops = [];
    this.#unsubscribe?.();
    const pending = Promise.allSettled([...this.#inFlight]);
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<"timeout">((resolve) => {
      graceTimer = setTimeout(() => resolve("timeout"), this.#options.shutdownGraceMs);
    });
    if ((await Promise.race([pending, graceOver])) === "timeout") {
      this.#deps.logger.warn({ running: this.runner.activeCount }, "interrupting running jobs for shutdown");
      this.runner.interruptAll();
      await pending;
    }
    clearTimeout(graceTimer);
    await loopsStopped;
    await this.#stopListening?.();
    this.#stopListening = undefined;
    await deleteWorkerHeartbeat(this.#deps.db, this.workerId).catch(() => {});
    await this.#deps.queue.stop();
    this.#deps.logger.info({ workerId: this.workerId }, "job worker stopped");
  }

  async #run(): Promise<void> {
    const { queue, logger } = this.#deps;
    while (this.#running) {
      const free = this.#options.concurrency - this.#inFlight.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.#slotFreed = resolve));
        continue;
      }
      let messages;
      try {
        messages = await queue.fetch(Math.min(free, this.#options.batchSize));
      } catch (error) {
        logger.warn({ err: error }, "job fetch failed");
        await this.#idle();
        continue;
      }
      if (messages.length === 0) {
        await this.#idle();
        continue;
      }
      for (const message of messages) {
        const delivery = this.runner.process(message).finally(() => {
          this.#inFlight.delete(delivery);
          this.#slotFreed?.();
          this.#slotFreed = undefined;
        });
        this.#inFlight.add(delivery);
      }
    }
  }

  #idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.#options.idleWaitMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}
