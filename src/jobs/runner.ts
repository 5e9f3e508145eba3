import { randomUUID } from "node:crypto";

import { claimJobLease } from "../db/jobs/claimJobLease.ts";
import { completeJob } from "../db/jobs/completeJob.ts";
import { failJob } from "../db/jobs/failJob.ts";
import { failUnleasedJob } from "../db/jobs/failUnleasedJob.ts";
import { findJob } from "../db/jobs/findJob.ts";
import type { JobRecordError, JobRow } from "../db/jobs/jobRow.ts";
import { releaseJobLease } from "../db/jobs/releaseJobLease.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import { withUpstreamPriority } from "../gateway/upstreamScope.ts";
import { withWriteFence } from "../gateway/writeFence.ts";
import type { ServiceEvents } from "../observability/events.ts";
import { withJobSpan } from "../observability/tracing.ts";
import { defaultRetryDelayMs } from "./backoff.ts";
import { classifyJobFailure } from "./classifyFailure.ts";
import { createJobContext } from "./context.ts";
import type { AnyJobHandler, JobResult } from "./handler.ts";
import { isUpstreamBusy } from "./isUpstreamBusy.ts";
import { JobError, LeaseLostError } from "./jobError.ts";
import { jobLeaseTtlMs, startJobLease } from "./jobLease.ts";
import type { JobSystemDeps } from "./jobSystemDeps.ts";
import type { QueueMessage } from "./queue.ts";
import { scrubError } from "./scrubError.ts";

/** How long before a handler's timeout its upstream budget waits give up. */
const BUDGET_DEADLINE_MARGIN_MS = 1_000;

export type JobRunnerDeps = JobSystemDeps;

/** How one delivery ended, as the runner saw it. */
export type DeliveryOutcome =
  | ServiceEvents["job.finished"]["outcome"]
  /** Interrupted by shutdown: lease released, message re-sent for another worker. */
  | "released"
  /** The runner could not reach the record; the message was failed so pg-boss redelivers it. */
  | "redelivery_requested";

/** The abort reason of a worker shutdown (distinct from the handler timeout). */
export class WorkerShutdown extends Error {
  constructor() {
    super("The worker is shutting down.");
    this.name = "WorkerShutdown";
  }
}

/** A job that met an exhausted upstream budget runs again after this (the budget frees every second). */
export const UPSTREAM_BUSY_DELAY_MS = 2_000;

/**
 * How long a delivery of a type this worker does not know waits before it is offered again (to
 * any worker: the queue is shared, so a newer one takes it within a few rounds).
 */
export const UNKNOWN_TYPE_REDELIVERY_MS = 5_000;

/** How long a handler may ignore its abort signal before the runner stops waiting for it. */
const MAX_ABANDON_GRACE_MS = 5000;

type HandlerSettlement =
  | { kind: "returned"; result: unknown }
  | { kind: "threw"; error: unknown }
  | { kind: "abandoned"; reason: unknown };

/**
 * The runner contract of spec/provisioning.md §2 for one delivery: load the record (missing or
 * not IN_PROGRESS → acknowledge and drop), dispatch on the stored type, claim the lease in one
 * guarded update, run the handler with an abort signal at its timeout, then complete, retry or
 * fail by compare-and-set on the lease token. Every terminal path invalidates the job's credential
 * unless the job handed it on, and clears the lease. Never runs a handler unleased.
 */
export class JobRunner {
  readonly #deps: JobRunnerDeps;
  readonly #active = new Map<string, AbortController>();

  constructor(deps: JobRunnerDeps) {
    this.#deps = deps;
  }

  /** Deliveries currently running a handler. */
  get activeCount(): number {
    return this.#active.size;
  }

  /** Aborts every running handler for shutdown: their leases are released and messages re-sent. */
  interruptAll(): void {
    for (const controller of this.#active.values()) controller.abort(new WorkerShutdown());
  }

  async process(message: QueueMessage): Promise<DeliveryOutcome> {
    const { logger } = this.#deps;
    try {
      return await this.#process(message);
    } catch (error) {
      // The database (or the queue) failed under us: let pg-boss redeliver the message; the
      // lease, if we took one, expires and the next delivery claims it.
      logger.error({ err: error, jobId: message.jobId, messageId: message.id }, "job delivery failed");
      await this.#deps.queue.fail(message).catch((failError: unknown) => {
        logger.error({ err: failError, messageId: message.id }, "could not fail the job message");
      });
      return "redelivery_requested";
    }
  }

  async #process(message: QueueMessage): Promise<DeliveryOutcome> {
    const { db, clock, registry, queue } = this.#deps;
    const record = message.jobId ? await findJob(db, message.jobId) : undefined;
    if (!record || record.status !== "IN_PROGRESS") {
      await queue.complete(message);
      return this.#finished(record?.type ?? "unknown", "dropped_duplicate");
    }
    this.#deps.events.emit("job.delivered", {
      type: record.type,
      lagSeconds: Math.max(0, (Date.now() - message.availableAt.getTime()) / 1000),
    });

    const handler = registry.get(record.type);
    if (!handler) {
      // A type this process does not know: a newer deployment's, met by an older worker during a
      // rolling upgrade. Leave it as it is (no lease, no attempt, no error) and hand the delivery
      // back a little later, for a worker that knows it. Re-sent before the ack: a crash between
      // the two duplicates the delivery (harmless, the lease guards) rather than losing it.
      await queue.enqueue(record.id, { delayMs: UNKNOWN_TYPE_REDELIVERY_MS });
      await queue.complete(message);
      this.#deps.logger.warn(
        { jobId: record.id, jobType: record.type },
        "job type unknown to this worker; left for another",
      );
      return this.#finished(record.type, "unknown_type");
    }

    const leaseToken = randomUUID();
    // The lease's remaining time, on this process's monotonic clock from before the claim was sent
    // (the database stamps the expiry later than that, on its own clock).
    const claimedAt = monotonicMsOf(clock);
    const ttlMs = jobLeaseTtlMs(handler);
    const claimed = await claimJobLease(db, {
      jobId: record.id,
      leaseToken,
      now: clock.databaseTime?.(),
      ttlMs,
    });
    if (!claimed) {
      await queue.complete(message);
      return this.#finished(record.type, "lease_lost");
    }

    const started = performance.now();
    // Renewed while the handler runs; once a renewal fails or its time runs out, no upstream write.
    const lease = startJobLease(this.#deps, { jobId: record.id, leaseToken, ttlMs, claimedAt });
    const outcome = await this.#runClaimed(claimed, leaseToken, handler, lease.held).finally(lease.stop);
    await queue.complete(message);
    const durationSeconds = (performance.now() - started) / 1000;
    if (outcome.kind === "released" || outcome.kind === "redelivery_requested") return outcome.kind;
    return this.#finished(record.type, outcome.kind, outcome.code, durationSeconds);
  }

  async #runClaimed(
    record: JobRow,
    leaseToken: string,
    handler: AnyJobHandler,
    leaseHeld: () => boolean,
  ): Promise<{ kind: DeliveryOutcome; code?: string }> {
    const { registry, logger } = this.#deps;
    const log = logger.child({ jobId: record.id, jobType: record.type, attempt: record.attempts });

    if (record.attempts > handler.maxAttempts) {
      // Deliveries kept dying before they could report (e.g. a crash loop): stop here.
      return this.#retriesSpent(record, leaseToken);
    }

    let metadata: Record<string, unknown> = record.metadata;
    if (handler.metadataSchema) {
      try {
        metadata = handler.metadataSchema.parse(record.metadata);
      } catch (error) {
        log.warn({ err: error }, "job metadata is invalid");
        return this.#failTerminal(record, leaseToken, {
          code: "INVALID_JOB_METADATA",
          message: registry.messageFor("INVALID_JOB_METADATA")!,
          retryable: false,
        });
      }
    }

    const exposedSecrets: string[] = [];
    const settlement = await this.#runHandler(
      record,
      leaseToken,
      handler,
      metadata,
      exposedSecrets,
      leaseHeld,
    );

    if (settlement.kind === "returned") {
      const result = isPlainObject(settlement.result)
        ? settlement.result
        : { value: settlement.result ?? null };
      return this.#complete(record, leaseToken, result);
    }

    const error = settlement.kind === "threw" ? settlement.error : settlement.reason;
    if (error instanceof LeaseLostError) {
      log.warn("job lease lost while the handler ran; its writes were discarded");
      return { kind: "lease_lost" };
    }
    if (error instanceof WorkerShutdown) {
      await this.#releaseForShutdown(record, leaseToken);
      return { kind: "released" };
    }

    const failure = classifyJobFailure(error, (code) => registry.messageFor(code));
    if (!(error instanceof JobError)) {
      log.warn({ err: scrubError(error, exposedSecrets), code: failure.code }, "job handler threw");
    }
    if (isUpstreamBusy(error)) {
      // The account's upstream budget was spent (or 429s came until the deadline): not the job's
      // fault. Delay it and give the attempt back, however many times (ADR 0019).
      log.info({ code: failure.code }, "job delayed: no upstream budget before its deadline");
      return this.#retryLater(record, leaseToken, handler, "upstreamBusy", { refundAttempt: true });
    }
    if (failure.retryable) {
      if (record.attempts >= handler.maxAttempts) return this.#retriesSpent(record, leaseToken);
      return this.#retryLater(record, leaseToken, handler, failure.code);
    }
    return this.#failTerminal(record, leaseToken, failure);
  }

  async #runHandler(
    record: JobRow,
    leaseToken: string,
    handler: AnyJobHandler,
    metadata: Record<string, unknown>,
    exposedSecrets: string[],
    leaseHeld: () => boolean,
  ): Promise<HandlerSettlement> {
    const { clock } = this.#deps;
    // The lineage's age (its budget order) is read before the handler's timer starts, so a slow
    // read cannot eat into the margin between the budget's deadline and the timeout.
    const since = await this.#lineageStartedAt(record);
    const controller = new AbortController();
    const timers = new AbortController();
    this.#active.set(leaseToken, controller);
    clock.sleep(handler.timeoutMs, timers.signal).then(
      () => controller.abort(new JobError("JOB_TIMEOUT", { retryable: true })),
      () => {},
    );
    // A handler that ignores its signal is waited for a short grace only; its later writes are
    // fenced by the lease anyway. A shutdown does not wait: the worker already gave it time.
    const abandoned = new Promise<HandlerSettlement>((resolve) => {
      controller.signal.addEventListener(
        "abort",
        () => {
          const reason: unknown = controller.signal.reason;
          if (reason instanceof WorkerShutdown) return resolve({ kind: "abandoned", reason });
          const grace = Math.min(MAX_ABANDON_GRACE_MS, handler.leaseTtlMs - handler.timeoutMs);
          clock.sleep(grace, timers.signal).then(
            () => resolve({ kind: "abandoned", reason }),
            () => {},
          );
        },
        { once: true },
      );
    });
    try {
      const context = createJobContext(this.#deps, {
        record,
        leaseToken,
        metadata,
        signal: controller.signal,
        exposedSecrets,
        leaseHeld,
      });
      // Job work waits for upstream budget after interactive requests, within the handler's
      // timeout less a margin: a budget wait must give up (upstreamBusy, a refunded attempt) before
      // the handler's timer aborts it (JOB_TIMEOUT, a spent one).
      // Within job work the oldest lineage goes first (its first record's time), so a burst of
      // onboardings finishes brand by brand and one brand's market calls overlap the next brand's
      // sub-workspace calls instead of every brand advancing in lockstep.
      const budgetMs = Math.max(0, handler.timeoutMs - BUDGET_DEADLINE_MARGIN_MS);
      // Every upstream write of the handler is sent only while the delivery's lease is held.
      const fence = { held: leaseHeld, lost: () => new LeaseLostError(record.id) };
      const settled = withUpstreamPriority(
        "job",
        clock.now().getTime(),
        budgetMs,
        // The delivery continues the trace its record carries (the request or hop that made it).
        () =>
          withJobSpan({ ...record, attempt: record.attempts }, () =>
            withWriteFence(fence, () => Promise.resolve().then(() => handler.handle(context))),
          ),
        since,
      ).then(
        (result): HandlerSettlement => ({ kind: "returned", result }),
        (error: unknown): HandlerSettlement => ({ kind: "threw", error }),
      );
      const settlement = await Promise.race([settled, abandoned]);
      // A handler that gave up because of the abort reports the abort's reason, not its own error.
      if (
        settlement.kind === "threw" &&
        controller.signal.aborted &&
        !(settlement.error instanceof JobError)
      ) {
        return { kind: "threw", error: controller.signal.reason };
      }
      return settlement;
    } finally {
      timers.abort();
      this.#active.delete(leaseToken);
    }
  }

  /** When the record's lineage began: its root's creation (the record's own for a root). */
  async #lineageStartedAt(record: JobRow): Promise<number> {
    if (!record.rootJobId) return record.createdAt.getTime();
    // Only an ordering hint: a failed read orders the delivery by its own record.
    const root = await findJob(this.#deps.db, record.rootJobId).catch(() => undefined);
    return (root?.createdAt ?? record.createdAt).getTime();
  }

  async #complete(record: JobRow, leaseToken: string, result: JobResult) {
    const { db, clock, credentials } = this.#deps;
    const row = await db.transaction(async (tx) => {
      const done = await completeJob(tx, {
        jobId: record.id,
        leaseToken,
        result,
        now: clock.databaseTime?.(),
      });
      if (done?.credentialId && !done.nextJobId) await credentials.invalidate(done.credentialId, { db: tx });
      return done;
    });
    if (!row) return { kind: "lease_lost" as const };
    const requeued = row.nextJobId !== null && typeof result.requeuedJobId === "string";
    return { kind: requeued ? ("requeued" as const) : ("completed" as const) };
  }

  async #failTerminal(record: JobRow, leaseToken: string, error: JobRecordError) {
    const failed = await this.#terminal(record, leaseToken, error);
    if (failed)
      this.#deps.logger.info({ jobId: record.id, jobType: record.type, code: error.code }, "job failed");
    return { kind: failed ? ("failed" as const) : ("lease_lost" as const), code: error.code };
  }

  #retriesSpent(record: JobRow, leaseToken: string) {
    return this.#failTerminal(record, leaseToken, {
      code: "JOB_FAILED",
      message: this.#deps.registry.messageFor("JOB_FAILED")!,
      retryable: true,
    });
  }

  /** FAILED + credential invalidation (unless handed on), in one transaction. */
  async #terminal(record: JobRow, leaseToken: string | undefined, error: JobRecordError): Promise<boolean> {
    const { db, clock, credentials } = this.#deps;
    return db.transaction(async (tx) => {
      const now = clock.databaseTime?.();
      const row = leaseToken
        ? await failJob(tx, { jobId: record.id, leaseToken, error, now })
        : await failUnleasedJob(tx, { jobId: record.id, error, now });
      if (row?.credentialId && !row.nextJobId) await credentials.invalidate(row.credentialId, { db: tx });
      return row !== undefined;
    });
  }

  /** Retryable: release the lease and schedule the next delivery, atomically. */
  async #retryLater(
    record: JobRow,
    leaseToken: string,
    handler: AnyJobHandler,
    code: string,
    options: { refundAttempt?: boolean } = {},
  ) {
    const { db, clock, queue } = this.#deps;
    const delayMs = options.refundAttempt
      ? UPSTREAM_BUSY_DELAY_MS
      : (handler.retryDelayMs ?? defaultRetryDelayMs)(record.attempts);
    const released = await db.transaction(async (tx) => {
      const row = await releaseJobLease(tx, {
        jobId: record.id,
        leaseToken,
        now: clock.databaseTime?.(),
        ...(options.refundAttempt ? { refundAttempt: true } : {}),
      });
      // A retry after a failure goes in as work under way; a delivery that only met a spent
      // upstream budget does not: ahead of new work, a tenant's jobs waiting for its spent account
      // would hold every handler and keep other tenants' new jobs from being fetched at all.
      if (row) {
        await queue.enqueue(record.id, { delayMs, db: tx, continuation: !options.refundAttempt });
      }
      return row !== undefined;
    });
    return { kind: released ? ("retried" as const) : ("lease_lost" as const), code };
  }

  async #releaseForShutdown(record: JobRow, leaseToken: string): Promise<void> {
    const { db, clock, queue } = this.#deps;
    await db.transaction(async (tx) => {
      const row = await releaseJobLease(tx, {
        jobId: record.id,
        leaseToken,
        now: clock.databaseTime?.(),
        refundAttempt: true,
      });
      if (row) await queue.enqueue(record.id, { db: tx, continuation: true });
    });
  }

  #finished(
    type: string,
    outcome: ServiceEvents["job.finished"]["outcome"],
    code?: string,
    durationSeconds?: number,
  ): DeliveryOutcome {
    this.#deps.events.emit("job.finished", {
      type,
      outcome,
      ...(code ? { code } : {}),
      ...(durationSeconds !== undefined ? { durationSeconds } : {}),
    });
    return outcome;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
