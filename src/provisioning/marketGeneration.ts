import type { BrandRow } from "../db/brands/insertBrand.ts";
import type { OrgRow } from "../db/orgs/insertOrg.ts";
import { countryForGeoTargetId } from "../domain/geoTarget.ts";
import type { PromptGenerationHandle } from "../generation/generationJobType.ts";
import type { GenerationCaller, GenerationProducer } from "../generation/generationProducer.ts";
import type { ActivationMarketResult } from "./activationMarkets.ts";

/**
 * How the endpoints that create markets (and the jobs that chain them) hand a new market to the
 * one generation producer (generation/generationProducer.ts). The producer sits on a lower layer
 * and knows nothing of these endpoints; these helpers only shape what they pass and attach what
 * comes back. Neither ever throws: generation never fails a market.
 */

export type GenerationProducerPort = Pick<GenerationProducer, "produce">;

export function generationForMarket(
  producer: GenerationProducerPort,
  caller: GenerationCaller,
  brand: BrandRow,
  org: OrgRow,
  market: { geoTargetId: number; languageCode: string; country: string },
  generatePrompts: boolean | undefined,
): Promise<PromptGenerationHandle | undefined> {
  return producer.produce({ caller, brand, org, market, generatePrompts });
}

/**
 * Activate: one producer call per requested market, created now or already there. The job id is
 * deterministic per market, so a market whose generation is running (or waiting for a reauth) gets
 * that job back (`reused: true`); one whose generation ended gets a new one (ADR 0014).
 */
export async function generationForActivation(
  producer: GenerationProducerPort,
  caller: GenerationCaller,
  brand: BrandRow,
  org: OrgRow,
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
