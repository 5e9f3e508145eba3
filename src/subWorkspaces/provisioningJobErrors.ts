import { ERROR_REGISTRY, ServiceError } from "../domain/errors.ts";
import { GatewayError } from "../gateway/errors.ts";
import { serviceErrorForGateway } from "../gateway/registryErrors.ts";
import { JobError, NEEDS_REAUTH, needsReauth } from "../jobs/jobError.ts";

/**
 * How provisioning-family jobs report failures on their records: registry codes with their fixed
 * sentences (the same a synchronous caller would get), NEEDS_REAUTH for anything the user's
 * credential caused, never a raw exception text.
 */

/** Sentences for the codes only these jobs produce (registered with their handlers). */
export const PROVISIONING_JOB_ERROR_MESSAGES: Record<string, string> = {
  chained_job_enqueue_failed:
    "The workspace is ready, but the follow-up work could not be queued; retry the request.",
  PROVISIONING_FAILED: "Provisioning failed unexpectedly.",
  subworkspaceCreationFailed: ERROR_REGISTRY.subworkspaceCreationFailed.message,
  subworkspaceCreationTimeout: "The workspace did not become ready in time.",
};

/** The user's credential is missing, expired or refused upstream (401/403). */
export function isReauthFailure(error: unknown): boolean {
  if (error instanceof JobError) return error.code === NEEDS_REAUTH;
  if (error instanceof GatewayError) return error.kind === "unauthorized" || error.kind === "forbidden";
  if (error instanceof ServiceError)
    return error.code === "authenticationRequired" || error.code === "forbidden";
  return false;
}

/**
 * Registry codes that say "not now" rather than "no": a job meeting one is retried later by the
 * runner (bounded by its attempts) instead of failing for good.
 */
const RETRY_LATER_CODES = new Set<string>(["brandBusy", "workspaceBusy"]);

/**
 * The JobError for a failure: terminal, except the "not now" codes above, which the runner retries
 * (the caller settled nothing it must undo first). `settled`: the caller already failed its state
 * (a provisioning hop after T5): always terminal.
 */
/**
 * A failure worth another delivery: a busy brand or workspace, or an upstream failure the gateway
 * classified transient (5xx, timeout, lost connection, 429) — also when a service already mapped it
 * to its registry code (the gateway error is its cause).
 */
export function isTransientFailure(error: unknown): boolean {
  if (error instanceof GatewayError) return error.transient;
  if (error instanceof ServiceError) {
    if (RETRY_LATER_CODES.has(error.code)) return true;
    return error.cause instanceof GatewayError && error.cause.transient;
  }
  return false;
}

export function asJobFailure(error: unknown, options: { settled?: boolean } = {}): JobError {
  if (isReauthFailure(error)) return error instanceof JobError ? error : needsReauth(error);
  if (error instanceof JobError) return error;
  const service = error instanceof GatewayError ? serviceErrorForGateway(error) : error;
  if (service instanceof ServiceError) {
    const retryable = !options.settled && isTransientFailure(error);
    return new JobError(service.code, { retryable, message: service.message, cause: error });
  }
  return new JobError("PROVISIONING_FAILED", {
    retryable: false,
    message: PROVISIONING_JOB_ERROR_MESSAGES.PROVISIONING_FAILED,
    cause: error,
  });
}
