import { z } from "zod";

/**
 * The generator contract (spec/generation.md §4): the DRS wire shape every generator receives, and
 * the response every generator returns. Field names are the contract's (snake_case envelope; the
 * `metadata` object is camelCase inside it) — never rename them to our style.
 */

/** The intent of a prompt, used for the intent mix of the quality stage (§7). */
export const PROMPT_CATEGORIES = ["comparative", "solution", "task", "informational", "pain_point"] as const;
export type PromptCategory = (typeof PROMPT_CATEGORIES)[number];

export function isPromptCategory(value: unknown): value is PromptCategory {
  return typeof value === "string" && (PROMPT_CATEGORIES as readonly string[]).includes(value);
}

/** Models the DRS accepts in `model`; anything else falls back to the default with a warning. */
export const GENERATION_MODELS = ["gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano", "gpt-5-nano"] as const;
export type GenerationModel = (typeof GENERATION_MODELS)[number];
export const DEFAULT_GENERATION_MODEL: GenerationModel = "gpt-5-nano";

export const GENERATION_VERDICTS = ["ship", "held", "gate_error"] as const;
export type GenerationVerdict = (typeof GENERATION_VERDICTS)[number];

export const catalogueSeedWire = z.object({
  topic: z.string().min(1),
  volume: z.number().nonnegative(),
  example_prompts: z.array(z.string()),
});
export type CatalogueSeedWire = z.infer<typeof catalogueSeedWire>;

/** The request, in the key order of the canonical fixture (our mapping must reproduce it exactly). */
export const generationRequestSchema = z.strictObject({
  /** Our brand id (the field name is the contract's). */
  site_id: z.string().min(1),
  brand: z.string().min(1),
  brand_aliases: z.array(z.string().min(1)),
  base_url: z.url({ protocol: /^https?$/ }),
  /** ISO 3166-1 alpha-2, upper case (`FR`). */
  market_country: z.string().regex(/^[A-Z]{2}$/),
  /** ISO 639-1 (`fr`), lower case. */
  language_code: z.string().regex(/^[a-z]{2,3}$/),
  /** Omitted (the key absent, not null) when the brand has no audience. */
  audience: z.string().min(1).optional(),
  num_prompts: z.number().int().min(1).max(100),
  model: z.enum(GENERATION_MODELS),
  catalogue_seeds: z.array(catalogueSeedWire),
  /**
   * `populated` whenever there are seeds (a capped catalogue is still populated). `empty` is ours,
   * only for a preview of a market without seeds: the producer never enqueues without seeds.
   */
  catalogue_status: z.enum(["populated", "empty"]),
  metadata: z.strictObject({ imsOrgId: z.string().min(1).optional() }),
});
export type GenerationRequest = z.infer<typeof generationRequestSchema>;

/**
 * One prompt. `category` is free text on the wire (the DRS sends `""` or its own labels); our
 * pipeline keeps it when it is one of PROMPT_CATEGORIES and infers it from the text otherwise.
 * `topic` is ours (the seed topic the prompt is grounded in); other generators leave it out.
 */
export interface GeneratedPrompt {
  prompt: string;
  category: string;
  topic?: string;
}

export interface LanguageEvidence {
  detected_language: string | null;
  /** Our confidence: the relative margin `(top − second) / top` of the detector's scores. */
  language_confidence: number | null;
  language_validation_passed: boolean;
}

/**
 * Counts per pipeline stage (§7). Ours: `hard_validated` = survived the hard checks,
 * `guardrail_dropped` = dropped as (near-)duplicates, `language_rejected` = failed the language
 * check, `quality_downranked` = valid but not kept by the quality ranking; so
 * `hard_validated − guardrail_dropped − language_rejected − quality_downranked = final_count`.
 */
export interface ShipSummary {
  generated: number;
  hard_validated: number;
  guardrail_dropped: number;
  language_rejected: number;
  quality_downranked: number;
  final_count: number;
  verdict: GenerationVerdict;
  error_category: "retryable" | "terminal" | null;
  reason: string;
}

/** The summary of a run that had nothing to validate (no seeds, an unsupported language): held. */
export function heldEmptySummary(reason: string): ShipSummary {
  return {
    generated: 0,
    hard_validated: 0,
    guardrail_dropped: 0,
    language_rejected: 0,
    quality_downranked: 0,
    final_count: 0,
    verdict: "held",
    error_category: null,
    reason,
  };
}

export interface GenerationResponse {
  prompts: GeneratedPrompt[];
  language_evidence: LanguageEvidence[];
  ship_summary: ShipSummary;
}
