import { ServiceError } from "../../domain/errors.ts";
import { upstreamFailure } from "../../gateway/registryErrors.ts";
import { JobError, LeaseLostError, needsReauth } from "../../jobs/jobError.ts";
import type { Logger } from "../../observability/logger.ts";
import { GENERATION_JOB_ERROR_MESSAGES } from "../generationOutcome.ts";

/**
 * The generation job's own codes beside those of generationOutcome.ts. The retryable ones are
 * never stored as such (a spent retry budget stores JOB_FAILED); they name the cause in logs.
 */
export const GENERATION_RETRY_CODES = {
  generator: "PROMPT_GENERATION_RETRYABLE",
  projectNotFound: "PROMPT_GENERATION_PROJECT_NOT_FOUND",
  write: "PROMPT_GENERATION_WRITE_FAILED",
  publish: "PROMPT_GENERATION_PUBLISH_FAILED",
} as const;

export const GENERATION_JOB_MESSAGES: Record<string, string> = {
  ...GENERATION_JOB_ERROR_MESSAGES,
  PROMPT_GENERATION_RETRYABLE: "The prompt generator is unavailable; the job will retry.",
  PROMPT_GENERATION_PROJECT_NOT_FOUND: "The market's project was not found; the job will retry.",
  PROMPT_GENERATION_WRITE_FAILED: "Writing the generated prompts failed; the job will retry.",
  PROMPT_GENERATION_PUBLISH_FAILED: "Publishing the generated prompts failed; the job will retry.",
};

/** Registry codes an upstream 401/403 becomes (gateway/registryErrors.ts): the user must sign in again. */
const REAUTH_CODES = new Set(["authenticationRequired", "forbidden"]);

export function isReauthCode(code: string): boolean {
  return REAUTH_CODES.has(code);
}

/**
 * What a failed upstream step of the write or publish phase becomes: an upstream 401/403 is
 * NEEDS_REAUTH (terminal until a reauth), anything else retryable with `code` (spec §3: the
 * original failed the job on a transient write error). A JobError or a lost lease passes through.
 */
export function writeFailure(error: unknown, log: Logger, operation: string, code: string): Error {
  if (error instanceof JobError || error instanceof LeaseLostError) return error;
  const mapped = upstreamFailure(error, log, operation);
  if (mapped instanceof ServiceError && isReauthCode(mapped.code)) return needsReauth(error);
  return new JobError(code, { retryable: true, cause: error });
}
