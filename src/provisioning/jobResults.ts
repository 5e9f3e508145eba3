import { brandView } from "../brands/brandView.ts";
import type { BrandRow } from "../db/brands/insertBrand.ts";
import type { PromptGenerationHandle } from "../generation/generationJobType.ts";
import type { Market } from "../markets/market.ts";
import { marketView } from "../markets/marketView.ts";
import { activationView } from "./activationView.ts";
import type { HopOutcome } from "./provisioningHop.ts";
import type { ActivationResult } from "./provisioningRequests.ts";

/**
 * What a provisioning-family job stores as its `result` (spec/provisioning.md §6): the
 * `{status, body}` the synchronous endpoint would have answered, through the same views as the
 * routes. This is the job records' edge, as the routes are the HTTP one: statuses are named only here.
 */

/** The job no longer applies (the brand moved on, or the attempt is someone else's now). */
export function supersededResult(brandId: string) {
  return { status: 207, body: { brandId, status: "superseded" } };
}

/** A provisioning hop that promoted the brand and had nothing to chain. */
export function provisionedResult(brandId: string) {
  return { status: 200, body: { brandId, provisioning: "ready" } };
}

/** `create-market` for create brand: the Brand, as its 201. */
export function brandCreatedResult(brand: BrandRow, promptGeneration?: PromptGenerationHandle) {
  return { status: 201, body: { ...brandView(brand), ...(promptGeneration ? { promptGeneration } : {}) } };
}

/** `create-market` for create market: `{market}`, as its 201. */
export function marketCreatedResult(market: Market, promptGeneration?: PromptGenerationHandle) {
  return {
    status: 201,
    body: { market: marketView(market), ...(promptGeneration ? { promptGeneration } : {}) },
  };
}

/** `activate-brand` and `activate-markets`: the activation, as its 200. */
export function activatedResult(activation: ActivationResult) {
  return { status: 200, body: activationView(activation) };
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
