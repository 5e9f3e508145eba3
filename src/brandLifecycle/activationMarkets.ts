import type { BrandRow } from "../db/brands/brandRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { ServiceError } from "../domain/errors.ts";
import { geoTargetIdFor } from "../domain/geoTarget.ts";
import type { OperationContext } from "../domain/operationContext.ts";
import type { CreateMarketInput } from "../markets/market.ts";
import type { PromptGenerationHandle } from "../markets/marketGeneration.ts";

/** One requested market of an activation: made now, or already there (the view shows `outcome`, and the deprecated 201 / 409). */
export interface ActivationMarketResult {
  geoTargetId: number;
  languageCode: string;
  outcome: "created" | "exists";
  /** The market's generation handle, when one was produced (spec/generation.md §2 step 5). */
  promptGeneration?: PromptGenerationHandle;
}

/** What activation needs of the market service. */
export interface ActivationMarketCreator {
  createForBrand(
    ctx: OperationContext,
    brand: BrandRow,
    org: OrgWithMetering,
    input: CreateMarketInput,
  ): Promise<{ geoTargetId: number; languageCode: string }>;
}

/**
 * Creates an activation's markets one by one (spec/api.md §3): a slice that already exists is
 * reported `exists` in the list; any other failure stops the activation. Shared by the synchronous
 * activate and the chained activation jobs, so both answer the same list.
 */
export async function createActivationMarkets(
  markets: ActivationMarketCreator,
  operation: OperationContext,
  brand: BrandRow,
  org: OrgWithMetering,
  requested: readonly CreateMarketInput[],
): Promise<{ results: ActivationMarketResult[]; created: { geoTargetId: number; languageCode: string }[] }> {
  const results: ActivationMarketResult[] = [];
  const created: { geoTargetId: number; languageCode: string }[] = [];
  for (const market of requested) {
    try {
      const made = await markets.createForBrand(operation, brand, org, market);
      created.push({ geoTargetId: made.geoTargetId, languageCode: made.languageCode });
      results.push({ geoTargetId: made.geoTargetId, languageCode: made.languageCode, outcome: "created" });
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === "marketExists")) throw error;
      results.push({
        geoTargetId: geoTargetIdFor(market.market)!,
        languageCode: market.languageCode.toLowerCase(),
        outcome: "exists",
      });
    }
  }
  return { results, created };
}
