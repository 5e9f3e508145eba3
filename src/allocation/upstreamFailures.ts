import { ServiceError } from "../domain/errors.ts";
import { registryErrorOf } from "../gateway/registryErrors.ts";
import type { AllocationUpstream } from "./upstreamPort.ts";

/** The error codes a release reports so batch callers can tell expected failures from bugs. */
export type ReleaseErrorCode =
  "orgPoolExhausted" | "brandAiLimit" | "workspaceBusy" | "forbidden" | "gone" | "unavailable";

/**
 * Turns an upstream failure of a resources read or transfer into the registry error a caller sees:
 * the one table (gateway/registryErrors.ts) with allocation's rows. Generic messages only; the
 * classification goes to the log at the throw site. Errors that are not upstream failures
 * (including ServiceErrors) pass through untouched.
 */
export function toServiceError(upstream: AllocationUpstream, error: unknown): unknown {
  if (error instanceof ServiceError) return error;
  const kind = upstream.failureKind(error);
  if (kind === undefined) return error;
  return registryErrorOf(kind, { allocation: true, details: { upstreamKind: kind }, cause: error });
}

/** The typed release error code of a failure, or `undefined` when it is unexpected. */
export function releaseErrorCodeOf(
  upstream: AllocationUpstream,
  error: unknown,
): ReleaseErrorCode | undefined {
  if (error instanceof ServiceError) {
    if (error.code === "forbidden") return "forbidden";
    if (
      error.code === "orgPoolExhausted" ||
      error.code === "brandAiLimit" ||
      error.code === "workspaceBusy"
    ) {
      return error.code;
    }
    return undefined;
  }
  switch (upstream.failureKind(error)) {
    case "poolExhausted":
      return "orgPoolExhausted";
    case "workspaceNotReady":
      return "workspaceBusy";
    case "forbidden":
      return "forbidden";
    case "gone":
      return "gone";
    case "unavailable":
    case "rateLimited":
      return "unavailable";
    default:
      return undefined;
  }
}
