import { type ErrorCode, ServiceError } from "../domain/errors.ts";
import { GeneratorError, type GeneratorFailureKind } from "./generatorError.ts";

/**
 * What a preview caller sees when the generator fails (spec/generation.md §8): the class of the
 * failure as a registry code, never the generator's message, status or body (those go to the log
 * line the service writes with the request id). A preview is synchronous, so "retryable" is the
 * caller's to act on: the code's sentence says so.
 */
const CODE_OF_KIND: Readonly<Record<GeneratorFailureKind, ErrorCode>> = {
  timeout: "generationTimeout",
  // Our own deadline aborts the generator: the same outcome as its timeout.
  aborted: "generationTimeout",
  transport: "generatorUnavailable",
  server_error: "generatorUnavailable",
  rate_limited: "generatorUnavailable",
  rejected: "generatorUnavailable",
  unparseable: "generatorUnavailable",
  unknown_verdict: "generatorUnavailable",
  // The operator's to fix (a generator chosen without its endpoint): not the caller's, not a retry.
  misconfigured: "configurationError",
};

export function previewFailure(error: unknown): unknown {
  if (!(error instanceof GeneratorError)) return error;
  return new ServiceError(CODE_OF_KIND[error.kind], {
    details: { generatorFailure: error.kind, status: error.status },
    cause: error,
  });
}
