import type { ActivationResult } from "./brandLifecycleRequests.ts";

/**
 * The `BrandActivation` shape of spec/api.md §3, for the activate endpoint and the activation
 * jobs' results alike: each requested market says its `outcome` (`created`, or `exists`: it was
 * already there), and, deprecated, the status its create would have answered (201 / 409).
 */
export function activationView(result: ActivationResult) {
  return {
    brandId: result.brandId,
    status: result.status,
    markets: result.markets.map((market) => ({
      geoTargetId: market.geoTargetId,
      languageCode: market.languageCode,
      outcome: market.outcome,
      // Deprecated (ADR 0037, "Names"): the HTTP status the market's create would have answered.
      status: market.outcome === "created" ? (201 as const) : (409 as const),
      ...(market.promptGeneration ? { promptGeneration: market.promptGeneration } : {}),
    })),
  };
}

/** The job records' edge: `activate-brand` and `activate-markets` store the activation as its 200. */
export function activatedResult(activation: ActivationResult) {
  return { status: 200, body: activationView(activation) };
}
