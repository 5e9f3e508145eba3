/**
 * How a job handler reports failure. `code` is stored on the record and shown to clients; the
 * message must be a fixed, caller-safe sentence (never an exception text or an upstream body) —
 * when omitted, the sentence comes from the job error registry (jobErrorMessages.ts).
 *
 * - retryable: the runner releases the lease and the queue redelivers with backoff, until the
 *   handler's `maxAttempts` is spent (then FAILED `JOB_FAILED`, retryable: true).
 * - not retryable: the job is FAILED at once with this code.
 */
export class JobError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  /** The caller-safe sentence, if the handler chose one. */
  readonly publicMessage: string | undefined;

  constructor(code: string, options: { retryable?: boolean; message?: string; cause?: unknown } = {}) {
    super(options.message ?? code, { cause: options.cause });
    this.name = "JobError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.publicMessage = options.message;
  }
}

/** The credential is missing, expired, invalidated or rejected upstream (401/403): ask the user. */
export const NEEDS_REAUTH = "NEEDS_REAUTH";

export function needsReauth(cause?: unknown): JobError {
  return new JobError(NEEDS_REAUTH, { retryable: false, cause });
}

/**
 * Thrown inside a handler when its lease was taken over (it ran past its lease and another
 * delivery claimed the job): the handler must stop; nothing it writes through the context lands.
 */
export class LeaseLostError extends Error {
  constructor(readonly jobId: string) {
    super("The job's lease was lost to another delivery.");
    this.name = "LeaseLostError";
  }
}
