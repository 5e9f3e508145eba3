import { type PromptType, promptType } from "../domain/brandedText.ts";
import { categoryOf, groundingTopic } from "./validation/promptTraits.ts";
import type { GeneratedPrompt, GenerationRequest, PromptCategory } from "./wire.ts";

/**
 * How the job tags a written prompt and how the preview shows it (spec/generation.md §3, §8):
 * `type` is always derived from the text (never trusted from a generator), `category` is one of
 * ours (inferred when the generator gave another), `topic` the seed topic it is grounded in.
 */
export interface DescribedPrompt {
  text: string;
  category: PromptCategory;
  type: PromptType;
  topic: string | null;
}

type Context = Pick<GenerationRequest, "brand" | "brand_aliases" | "language_code" | "catalogue_seeds">;

export function describeGeneratedPrompt(prompt: GeneratedPrompt, context: Context): DescribedPrompt {
  const seeds = context.catalogue_seeds.map(({ topic, volume }) => ({ topic, volume }));
  const topic =
    prompt.topic !== undefined && seeds.some((seed) => seed.topic === prompt.topic)
      ? prompt.topic
      : groundingTopic(prompt.prompt, seeds, context.language_code);
  return {
    text: prompt.prompt,
    category: categoryOf(prompt.category, prompt.prompt, context.language_code),
    type: promptType(prompt.prompt, { name: context.brand, aliases: context.brand_aliases }),
    topic,
  };
}

export function describeGeneratedPrompts(
  prompts: readonly GeneratedPrompt[],
  context: Context,
): DescribedPrompt[] {
  return prompts.map((prompt) => describeGeneratedPrompt(prompt, context));
}
