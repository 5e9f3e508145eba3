import type { GenerationJobMetadata } from "./generationJobMetadata.ts";
import {
  DEFAULT_GENERATION_MODEL,
  GENERATION_MODELS,
  type GenerationModel,
  type GenerationRequest,
} from "./wire.ts";

/**
 * The pure mapping from a generation job's metadata to the generator request (spec/generation.md
 * §4). It reproduces the canonical fixture's `request` byte for byte for the same inputs (key
 * order included). Only allowlisted fields are read, so no credential can travel to a generator.
 */

/** What the mapping reads from the job's metadata. */
export type GenerationRequestInput = Pick<
  GenerationJobMetadata,
  "brandId" | "languageCode" | "market" | "baseUrl" | "brand" | "aliases" | "count" | "seeds"
> & { audience?: string | undefined };

export interface GenerationRequestContext {
  /** The org's external id (`orgs.external_id`); the key is omitted when the org has none. */
  imsOrgId: string | null | undefined;
  /** The configured model (`SERENITY_GENERATION_MODEL`); unset means the default. */
  model?: string | undefined;
}

export interface UnknownModelWarning {
  kind: "unknownGenerationModel";
  requested: string;
  used: GenerationModel;
}

function isGenerationModel(value: string): value is GenerationModel {
  return (GENERATION_MODELS as readonly string[]).includes(value);
}

/** The allowlisted model, else the default (with a warning when something else was asked for). */
export function resolveGenerationModel(
  requested: string | undefined,
  warn: (warning: UnknownModelWarning) => void = () => {},
): GenerationModel {
  const value = requested?.trim() ?? "";
  if (value === "") return DEFAULT_GENERATION_MODEL;
  if (isGenerationModel(value)) return value;
  warn({ kind: "unknownGenerationModel", requested: value, used: DEFAULT_GENERATION_MODEL });
  return DEFAULT_GENERATION_MODEL;
}

/** A market's base URL: the brand's primary URL when it has one, else `https://<domain>`. */
export function baseUrlFor(primaryUrl: string | null | undefined, domain: string): string {
  const primary = primaryUrl?.trim();
  if (primary) return primary;
  const host = domain
    .trim()
    .replace(/^[a-z]+:\/\//i, "")
    .split(/[/?#]/)[0]!;
  return `https://${host}`;
}

/** Trimmed, non-empty aliases, each once (case-insensitively), never the brand itself. */
function cleanAliases(brand: string, aliases: readonly string[]): string[] {
  const seen = new Set([brand.trim().toLocaleLowerCase()]);
  const kept: string[] = [];
  for (const alias of aliases) {
    const text = alias.trim();
    const key = text.toLocaleLowerCase();
    if (text === "" || seen.has(key)) continue;
    seen.add(key);
    kept.push(text);
  }
  return kept;
}

export function toGenerationRequest(
  input: GenerationRequestInput,
  context: GenerationRequestContext,
  warn: (warning: UnknownModelWarning) => void = () => {},
): GenerationRequest {
  const brand = input.brand.trim();
  const audience = input.audience?.trim();
  const imsOrgId = context.imsOrgId?.trim();
  return {
    site_id: input.brandId,
    brand,
    brand_aliases: cleanAliases(brand, input.aliases),
    base_url: input.baseUrl,
    market_country: input.market.trim().toUpperCase(),
    language_code: input.languageCode.trim().toLowerCase().split(/[-_]/)[0]!,
    ...(audience ? { audience } : {}),
    num_prompts: input.count,
    model: resolveGenerationModel(context.model, warn),
    catalogue_seeds: input.seeds.map((seed) => ({
      topic: seed.topic,
      volume: seed.volume,
      example_prompts: [...seed.examplePrompts],
    })),
    catalogue_status: input.seeds.length > 0 ? "populated" : "empty",
    metadata: imsOrgId ? { imsOrgId } : {},
  };
}
