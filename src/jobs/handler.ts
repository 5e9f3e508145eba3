import type { JobRow } from "../db/jobs/jobRow.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";

/** The record as a handler sees it (the lease token stays with the runner). */
export type JobSnapshot = Readonly<Omit<JobRow, "leaseToken">>;

export type JobMetadata = Record<string, unknown>;
export type JobResult = Record<string, unknown>;

export interface RequeueOptions {
  /** Delivery delay of the next hop. */
  delayMs: number;
  /** The next hop's metadata; defaults to this job's current metadata (checkpoints included). */
  metadata?: JobMetadata;
}

export interface ChainOptions {
  /** The internal type of the follow-up job (must be registered). */
  type: string;
  metadata: JobMetadata;
  delayMs?: number;
}

/**
 * What a handler gets for one delivery. Everything that writes is guarded by the delivery's lease:
 * after a takeover, `saveCheckpoint`, `requeue` and `chain` throw `LeaseLostError`. A write the
 * lease does not fence (one guarded by something else, e.g. a brand's attempt id) is preceded by
 * `assertLeaseHeld`.
 */
export interface JobContext<M extends JobMetadata = JobMetadata> {
  job: JobSnapshot;
  /** The metadata as of now (updated by `saveCheckpoint`). */
  metadata: M;
  /** 1 for the first delivery that claimed the job, 2 for the next, … */
  attempt: number;
  /** Fires at the handler timeout (reason: a JobError `JOB_TIMEOUT`) or at worker shutdown. */
  signal: AbortSignal;
  clock: Clock;
  /** Bound with jobId, jobType, orgId, brandId and attempt. */
  logger: Logger;
  /** The user's upstream token; throws a `NEEDS_REAUTH` JobError when there is none usable. */
  credential(): Promise<string>;
  /**
   * One read: throws `LeaseLostError` unless this delivery still holds the lease (record
   * IN_PROGRESS, this delivery's token, unexpired by the job clock). The runner releases a lease
   * after the timeout's grace while a handler that ignores its signal may still run; call this
   * right before an irreversible step that only another guard fences, so a late copy stands down.
   * It narrows the window rather than closing it: the lease can still go between check and step.
   */
  assertLeaseHeld(): Promise<void>;
  /** Merges top-level keys into the stored metadata (a retry resumes from them). */
  saveCheckpoint(patch: Partial<M> & JobMetadata): Promise<void>;
  /**
   * Creates the next hop of this job (same type) with a delivery delay, records it as `nextJobId`,
   * hands the credential on, and returns the result to return from the handler.
   */
  requeue(options: RequeueOptions): Promise<{ requeuedJobId: string }>;
  /** Creates a follow-up job of another type (credential handed on) — return its result. */
  chain(options: ChainOptions): Promise<{ chainedJobId: string }>;
}

export interface JobHandlerDefinition<M extends JobMetadata = JobMetadata, R extends JobResult = JobResult> {
  /** Internal type, stored on the record, e.g. `provision-workspace`. */
  type: string;
  /** The `jobType` clients see, e.g. `provisionWorkspace`. */
  publicType: string;
  /** `provisioning`: polls follow `requeuedJobId`/`chainedJobId` hand-offs to the last hop. */
  family?: "provisioning" | (string & {});
  /** The handler's abort signal fires after this long. */
  timeoutMs: number;
  /** Must exceed `timeoutMs` (a lease never expires under a live handler). */
  leaseTtlMs: number;
  /** Deliveries that may claim the job before a retryable failure becomes terminal. */
  maxAttempts: number;
  /** Backoff before redelivery after the `attempt`-th retryable failure (default: 1 s · 2^(n−1), ≤ 60 s). */
  retryDelayMs?: (attempt: number) => number;
  /** Caller-safe sentences for this handler's error codes (`error.message` on FAILED records). */
  errorMessages?: Record<string, string>;
  /** Validates the stored metadata before the handler runs (e.g. a zod schema); a throw fails the job. */
  metadataSchema?: { parse(value: unknown): M };
  handle(ctx: JobContext<M>): Promise<R>;
}

// Handlers are stored without their generic parameters: metadata is validated per definition.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobHandler = JobHandlerDefinition<any, any>;

/** Identity with inference: `export const myJob = defineJobHandler({ … })`. */
export function defineJobHandler<M extends JobMetadata, R extends JobResult>(
  definition: JobHandlerDefinition<M, R>,
): JobHandlerDefinition<M, R> {
  return definition;
}
