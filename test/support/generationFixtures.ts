import { readFileSync } from "node:fs";

import { boundSeeds } from "../../src/generation/seeds.ts";
import { toGenerationRequest } from "../../src/generation/toGenerationRequest.ts";
import type { GenerationRequest, GenerationResponse, ShipSummary } from "../../src/generation/wire.ts";
import { brandTopicsFor } from "../../src/simulator/catalogue/brandTopics.ts";

/** The DRS contract fixture (a copy of the specification's, see test/fixtures/README.md). */
export const DRS_CONTRACT = JSON.parse(
  readFileSync("test/fixtures/drs-generation-contract.json", "utf8"),
) as {
  request: GenerationRequest;
  response: unknown;
  service_response: unknown;
};

/** One market per supported language, with the country whose catalogue serves that language. */
export const MARKETS = [
  { language: "en", country: "US" },
  { language: "fr", country: "FR" },
  { language: "de", country: "DE" },
  { language: "es", country: "ES" },
  { language: "it", country: "IT" },
  { language: "pt", country: "PT" },
  { language: "nl", country: "NL" },
] as const;

/** A realistic request: the simulator's catalogue for the domain and country, bounded as the producer does. */
export function simulatedRequest(
  market: { language: string; country: string },
  options: { domain?: string; brand?: string; aliases?: string[]; count?: number } = {},
): GenerationRequest {
  const domain = options.domain ?? "lumiere.example";
  return toGenerationRequest(
    {
      brandId: "6f1c2b7e-1d2a-4c7b-9a51-3e8f0f6d2c10",
      languageCode: market.language,
      market: market.country,
      baseUrl: `https://${domain}`,
      brand: options.brand ?? "Lumiere",
      aliases: options.aliases ?? [],
      count: options.count ?? 50,
      seeds: boundSeeds(brandTopicsFor(domain, market.country.toLowerCase())),
    },
    { imsOrgId: "ABCDEF1234567890ABCDEF01@AdobeOrg" },
  );
}

/** The fixture's request for five prompts over five French skincare seeds. */
export const FIVE_SEED_REQUEST: GenerationRequest = {
  ...DRS_CONTRACT.request,
  num_prompts: 5,
  catalogue_seeds: [
    { topic: "creme hydratante visage", volume: 8100, example_prompts: [] },
    { topic: "serum vitamine c", volume: 5400, example_prompts: [] },
    { topic: "protection solaire", volume: 4400, example_prompts: [] },
    { topic: "peau sensible", volume: 2900, example_prompts: [] },
    { topic: "routine de soin", volume: 1900, example_prompts: [] },
  ],
};

const ONE_PROMPT = [{ prompt: "Quelle creme hydratante choisir ?", category: "solution" }];

/** A generator's answer: a shipped prompt unless `summary` says otherwise. */
export function generationResponse(
  summary: Partial<ShipSummary>,
  prompts: GenerationResponse["prompts"] = ONE_PROMPT,
): GenerationResponse {
  return {
    prompts,
    language_evidence: [],
    ship_summary: {
      generated: 1,
      hard_validated: 1,
      guardrail_dropped: 0,
      language_rejected: 0,
      quality_downranked: 0,
      final_count: prompts.length,
      verdict: "ship",
      error_category: null,
      reason: "ok",
      ...summary,
    },
  };
}
