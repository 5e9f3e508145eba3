import type { GenerationRequest, GenerationResponse } from "./wire.ts";

/**
 * The generator port (spec/generation.md §4): one call turns a request (the DRS wire shape) into
 * validated prompts with a verdict. Implementations are thin adapters (builtin templates, a DRS
 * service over HTTP, an OpenAI-compatible endpoint); a failure is a `GeneratorError`, classified
 * retryable or terminal. A generator never receives a credential: the request is all it gets.
 */

export const GENERATOR_NAMES = ["builtin", "drs", "openai"] as const;
export type GeneratorName = (typeof GENERATOR_NAMES)[number];

export function isGeneratorName(value: unknown): value is GeneratorName {
  return typeof value === "string" && (GENERATOR_NAMES as readonly string[]).includes(value);
}

export interface GenerateOptions {
  /** The caller's cancellation (the job's timeout, a shutdown, a preview's client gone). */
  signal?: AbortSignal;
}

export interface PromptGenerator {
  readonly name: GeneratorName;
  generate(request: GenerationRequest, options?: GenerateOptions): Promise<GenerationResponse>;
}
