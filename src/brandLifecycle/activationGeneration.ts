import type { BrandRow } from "../db/brands/brandRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { countryForGeoTargetId } from "../domain/geoTarget.ts";
import type { GenerationCaller, GenerationProducerPort } from "../markets/marketGeneration.ts";
import type { ActivationMarketResult } from "./activationMarkets.ts";

/**
 * Activate: one producer call per requested market, created now or already there. The job id is
 * deterministic per market, so a market whose generation is running (or waiting for a reauth) gets
 * that job back (`reused: true`); one whose generation ended gets a new one (ADR 0014).
 */
export async function generationForActivation(
  producer: GenerationProducerPort,
  caller: GenerationCaller,
  brand: BrandRow,
  org: OrgWithMetering,
  results: ActivationMarketResult[],
  generatePrompts: boolean | undefined,
): Promise<ActivationMarketResult[]> {
  if (generatePrompts !== true) return results;
  const withHandles: ActivationMarketResult[] = [];
  for (const result of results) {
    const country = countryForGeoTargetId(result.geoTargetId);
    const handle = country
      ? await producer.produce({
          caller,
          brand,
          org,
          market: { geoTargetId: result.geoTargetId, languageCode: result.languageCode, country },
          generatePrompts,
        })
      : undefined;
    withHandles.push(handle ? { ...result, promptGeneration: handle } : result);
  }
  return withHandles;
}
