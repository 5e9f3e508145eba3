import { type ErrorCode, ServiceError } from "../domain/errors.ts";
import type { Logger } from "../observability/logger.ts";
import { GatewayError, type GatewayErrorKind } from "./errors.ts";

/**
 * The one table where a classified upstream failure becomes a registry code (spec/api.md §2,
 * spec/gateway.md §5). A caller learns only the class of failure; the upstream's kind, status,
 * templated route and truncated body go to the log line written here, under the request's id.
 */

/** The fixed sentence for an upstream 401/403: never the upstream's own wording. */
export const UPSTREAM_AUTHORIZATION_FAILED = "Upstream authorization failed";

interface RegistryRow {
  code: ErrorCode;
  /** A caller-safe sentence replacing the registry's default. */
  message?: string;
}

const UPSTREAM_FAILED: RegistryRow = { code: "serenityUpstreamError" };

/** What a caller sees for each kind of upstream failure. */
export const REGISTRY_ROWS: Readonly<Record<GatewayErrorKind, RegistryRow>> = {
  unauthorized: { code: "authenticationRequired", message: UPSTREAM_AUTHORIZATION_FAILED },
  forbidden: { code: "forbidden", message: UPSTREAM_AUTHORIZATION_FAILED },
  conflict: { code: "conflict" },
  meteredQuota: { code: "quotaExceeded" },
  // A project (or prompt) Serenity tracks that upstream no longer has: removed by a concurrent
  // change or outside Serenity. The caller's resource is gone, not the upstream broken.
  gone: { code: "notFound" },
  methodNotAllowed: UPSTREAM_FAILED,
  poolExhausted: UPSTREAM_FAILED,
  workspaceNotReady: UPSTREAM_FAILED,
  // The budget found no slot before the deadline, or 429s kept coming until it: retry shortly.
  rateLimited: { code: "upstreamBusy" },
  unavailable: UPSTREAM_FAILED,
  badRequest: UPSTREAM_FAILED,
  unexpectedResponse: UPSTREAM_FAILED,
};

/**
 * Allocation's resources reads and transfers (spec/allocation.md §3 step 6) answer differently
 * for the two failures only a transfer produces: a pool that cannot cover the top-up is the org's
 * to fix (409), and a settling sub-workspace is a retry-shortly (503, no wait on a request path).
 */
export const ALLOCATION_ROWS: Readonly<Partial<Record<GatewayErrorKind, RegistryRow>>> = {
  poolExhausted: { code: "orgPoolExhausted" },
  workspaceNotReady: { code: "workspaceBusy" },
};

/** The ServiceError of a failure of `kind`; `allocation` applies ALLOCATION_ROWS first. */
export function registryErrorOf(
  kind: GatewayErrorKind,
  options: { allocation?: boolean; details?: Record<string, unknown>; cause?: unknown } = {},
): ServiceError {
  const row = (options.allocation ? ALLOCATION_ROWS[kind] : undefined) ?? REGISTRY_ROWS[kind];
  return new ServiceError(row.code, {
    ...(row.message ? { message: row.message } : {}),
    details: options.details,
    cause: options.cause,
  });
}

export function serviceErrorForGateway(error: GatewayError): ServiceError {
  return registryErrorOf(error.kind, {
    details: { upstream: { kind: error.kind, status: error.status, route: error.route } },
    cause: error,
  });
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
