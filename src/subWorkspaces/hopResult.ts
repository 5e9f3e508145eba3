import type { HopOutcome } from "./provisioningHop.ts";

/**
 * What a provisioning hop stores as its job record's `result` (spec/provisioning.md §6): the
 * `{status, body}` the synchronous endpoint would have answered, or the next job to follow.
 */

/** The job no longer applies (the brand moved on, or the attempt is someone else's now). */
export function supersededResult(brandId: string) {
  return { status: 207, body: { brandId, status: "superseded" } };
}

/** A provisioning hop that promoted the brand and had nothing to chain. */
export function provisionedResult(brandId: string) {
  return { status: 200, body: { brandId, provisioning: "ready" } };
}

/** A provisioning hop's outcome as its record's result: a hand-off names the next job to follow. */
export function hopResult(brandId: string, outcome: HopOutcome) {
  switch (outcome.kind) {
    case "requeued":
      return { requeuedJobId: outcome.requeuedJobId };
    case "chained":
      return { chainedJobId: outcome.chainedJobId };
    case "provisioned":
      return provisionedResult(brandId);
    case "superseded":
      return supersededResult(brandId);
  }
}
