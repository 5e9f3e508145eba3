import { ServiceError } from "../domain/errors.ts";
import { GatewayError } from "../gateway/errors.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * The one place where a gateway failure becomes a registry code (spec/api.md §2, spec/gateway.md §5).
 * A caller learns only the class of failure; the upstream's kind, status, templated route and
 * truncated body go to the log line written here, under the request's id.
 */

/** The fixed sentence for an upstream 401/403: never the upstream's own wording. */
export const UPSTREAM_AUTHORIZATION_FAILED = "Upstream authorization failed";

export function serviceErrorForGateway(error: GatewayError): ServiceError {
  const details = { upstream: { kind: error.kind, status: error.status, route: error.route } };
  switch (error.kind) {
    case "unauthorized":
      return new ServiceError("authenticationRequired", {
        message: UPSTREAM_AUTHORIZATION_FAILED,
        details,
        cause: error,
      });
    case "forbidden":
      return new ServiceError("forbidden", { message: UPSTREAM_AUTHORIZATION_FAILED, details, cause: error });
    case "conflict":
      return new ServiceError("conflict", { details, cause: error });
    case "meteredQuota":
      return new ServiceError("quotaExceeded", { details, cause: error });
    default:
      return new ServiceError("serenityUpstreamError", { details, cause: error });
  }
}

/**
 * Turns whatever an upstream-touching step threw into what the service rethrows: a gateway error
 * becomes its registry code (logged here with the upstream details); a ServiceError (from the
 * allocation guard, say) and anything else pass through unchanged.
 */
export function upstreamFailure(error: unknown, log: Logger, operation: string): unknown {
  if (!(error instanceof GatewayError)) return error;
  const mapped = serviceErrorForGateway(error);
  log.warn({ operation, code: mapped.code, ...error.toLog() }, "upstream call failed");
  return mapped;
}

/** Runs one upstream step and rethrows its failure mapped (see `upstreamFailure`). */
export async function atUpstreamEdge<T>(log: Logger, operation: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw upstreamFailure(error, log, operation);
  }
}
