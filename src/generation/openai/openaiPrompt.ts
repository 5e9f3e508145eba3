import { INTENT_MIX_TARGET } from "../validation/qualitySelection.ts";
import { type GenerationRequest, PROMPT_CATEGORIES } from "../wire.ts";

/**
 * What the `openai` generator asks an OpenAI-compatible chat-completions endpoint for: prompts in
 * the market's language, grounded in the seed topics, in our intent categories, as JSON. Only what
 * the task needs is sent (no site id, no org id): this endpoint may be a third party.
 */

/** Ask for more than needed: the validation pipeline drops some and picks the mix. */
export function candidatesToAskFor(numPrompts: number): number {
  return Math.min(150, Math.ceil(numPrompts * 1.5));
}

export const PROMPTS_JSON_SCHEMA = {
  type: "object",
  properties: {
    prompts: {
      type: "array",
      items: {
        type: "object",
        properties: {
          prompt: { type: "string" },
          category: { type: "string", enum: [...PROMPT_CATEGORIES] },
          topic: { type: "string" },
        },
        required: ["prompt", "category", "topic"],
        additionalProperties: false,
      },
    },
  },
  required: ["prompts"],
  additionalProperties: false,
} as const;

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

export function chatMessages(request: GenerationRequest): { role: "system" | "user"; content: string }[] {
  const mix = Object.entries(INTENT_MIX_TARGET)
    .map(([category, share]) => `${percent(share)} ${category}`)
    .join(", ");
  const system = [
    "You write the prompts people type into AI assistants, to monitor how a brand appears in AI answers.",
    "Each prompt is a natural, complete question or request that a real person in the given market would ask",
    "an assistant — never a list of search keywords. Write every prompt in the language given by",
    "language_code, as spoken in market_country. Ground each prompt in one of the seed topics and name that",
    `topic in the "topic" field. Intent categories: ${PROMPT_CATEGORIES.join(", ")}; aim for ${mix}.`,
    "Name the brand or one of its aliases in 10 to 30 percent of the prompts only; the others must not name it.",
    "Each prompt has 3 to 25 words and no URL, e-mail address, phone number or placeholder.",
    'Answer with JSON only, in the shape {"prompts": [{"prompt": "…", "category": "…", "topic": "…"}]}.',
  ].join(" ");
  const task = {
    brand: request.brand,
    brand_aliases: request.brand_aliases,
    base_url: request.base_url,
    market_country: request.market_country,
    language_code: request.language_code,
    ...(request.audience ? { audience: request.audience } : {}),
    prompts_wanted: candidatesToAskFor(request.num_prompts),
    seed_topics: request.catalogue_seeds,
  };
  return [
    { role: "system", content: system },
    { role: "user", content: JSON.stringify(task) },
  ];
}
