import type { Market } from "./market.ts";

/** The `Market` shape of spec/api.md §3: an explicit allowlist of fields. */
export function marketView(market: Market) {
  return {
    geoTargetId: market.geoTargetId,
    languageCode: market.languageCode,
    country: market.country,
    projectId: market.projectId,
    publishStatus: market.publishStatus,
    models: market.models.map(({ id, key, name }) => ({ id, key, name })),
    promptCount: market.promptCount,
    createdAt: market.createdAt.toISOString(),
  };
}
