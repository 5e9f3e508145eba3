import { ServiceError } from "../domain/errors.ts";
import { GatewayError } from "../gateway/errors.ts";
import { JobError } from "./jobError.ts";

/**
 * True when a failure is the upstream's request limit (a 429 until the deadline, or no budget
 * slot before it), however a service wrapped it: the gateway's `rateLimited`, the registry's
 * `upstreamBusy`, or a JobError of that code — following `cause` a few levels down.
 */
export function isUpstreamBusy(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof GatewayError && current.kind === "rateLimited") return true;
    if ((current instanceof ServiceError || current instanceof JobError) && current.code === "upstreamBusy")
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
