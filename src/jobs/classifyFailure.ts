import type { JobRecordError } from "../db/jobs/jobRow.ts";
import { ERROR_REGISTRY, isErrorCode } from "../domain/errors.ts";
import { JobError } from "./jobError.ts";
import { GENERIC_JOB_FAILURE } from "./jobErrorMessages.ts";

const CODE_SHAPE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * Turns whatever a handler threw into the `error` stored on the record. Pure. The stored message
 * is always a fixed sentence: the handler's chosen one for a JobError, else the job registry's
 * (or the API registry's) sentence for the code, else a generic one — never `error.message`.
 * Any error may mark itself retryable (`retryable: true`, as classified upstream errors do).
 */
export function classifyJobFailure(
  error: unknown,
  messageFor: (code: string) => string | undefined,
): JobRecordError {
  if (error instanceof JobError) {
    return {
      code: error.code,
      message: error.publicMessage ?? messageFor(error.code) ?? GENERIC_JOB_FAILURE,
      retryable: error.retryable,
    };
  }
  const candidate = (error as { code?: unknown } | null)?.code;
  const code = typeof candidate === "string" && CODE_SHAPE.test(candidate) ? candidate : "JOB_FAILED";
  const retryable = (error as { retryable?: unknown } | null)?.retryable === true;
  const message =
    messageFor(code) ?? (isErrorCode(code) ? ERROR_REGISTRY[code].message : GENERIC_JOB_FAILURE);
  return { code, message, retryable };
}
