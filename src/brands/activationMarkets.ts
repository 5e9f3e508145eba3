import type { BrandRow } from "../db/brands/insertBrand.ts";
import type { OrgRow } from "../db/orgs/insertOrg.ts";
import { ServiceError } from "../domain/errors.ts";
import { geoTargetIdFor } from "../markets/geoTarget.ts";
import type { CreateMarketInput } from "../markets/market.ts";
import type { OperationContext } from "../markets/marketService.ts";

export interface ActivationMarketResult {
  geoTargetId: number;
  languageCode: string;
  status: 201 | 409;
}

/** The markets an activation asks for must name real countries, checked before any write. */
export function validateActivationMarkets(requested: readonly CreateMarketInput[]): void {
  for (const market of requested) {
    if (geoTargetIdFor(market.market) === undefined) {
      throw new ServiceError("invalidRequest", {
        message: "markets.market must be an ISO-3166 alpha-2 code",
      });
    }
  }
}

/**
 * Creates an activation's markets one by one (spec/api.md §3): a slice that already exists reports
 * 409 in the list; any other failure stops the activation. Shared by the synchronous activate and
 * the chained activation jobs, so both answer the same `{geoTargetId, languageCode, status}` list.
 */
/** What activation needs of the market service (the brand service knows it by this narrow shape). */
export interface ActivationMarketCreator {
  createForBrand(
    ctx: OperationContext,
    brand: BrandRow,
    org: OrgRow,
    input: CreateMarketInput,
  ): Promise<{ geoTargetId: number; languageCode: string }>;
}

export async function createActivationMarkets(
  markets: ActivationMarketCreator,
  operation: OperationContext,
  brand: BrandRow,
  org: OrgRow,
  requested: readonly CreateMarketInput[],
): Promise<{ results: ActivationMarketResult[]; created: { geoTargetId: number; languageCode: string }[] }> {
  const results: ActivationMarketResult[] = [];
  const created: { geoTargetId: number; languageCode: string }[] = [];
  for (const market of requested) {
    try {
      const made = await markets.createForBrand(operation, brand, org, market);
      created.push({ geoTargetId: made.geoTargetId, languageCode: made.languageCode });
      results.push({ geoTargetId: made.geoTargetId, languageCode: made.languageCode, status: 201 });
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === "marketExists")) throw error;
      results.push({
        geoTargetId: geoTargetIdFor(market.market)!,
        languageCode: market.languageCode.toLowerCase(),
        status: 409,
      });
    }
  }
  return { results, created };
}
