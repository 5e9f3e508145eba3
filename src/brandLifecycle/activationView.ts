import type { ActivationResult } from "./brandLifecycleRequests.ts";

/**
 * The `BrandActivation` shape of spec/api.md §3, for the activate endpoint and the activation
 * jobs' results alike: each requested market answers the status its create would have (201 made,
 * 409 already there).
 */
export function activationView(result: ActivationResult) {
  return {
    brandId: result.brandId,
    status: result.status,
    markets: result.markets.map((market) => ({
      geoTargetId: market.geoTargetId,
      languageCode: market.languageCode,
      status: market.outcome === "created" ? (201 as const) : (409 as const),
      ...(market.promptGeneration ? { promptGeneration: market.promptGeneration } : {}),
    })),
  };
}

/** The job records' edge: `activate-brand` and `activate-markets` store the activation as its 200. */
export function activatedResult(activation: ActivationResult) {
  return { status: 200, body: activationView(activation) };
}
