import { GeneratorError } from "../generatorError.ts";
import type { GenerateOptions, PromptGenerator } from "../promptGenerator.ts";
import type { LanguageValidator } from "../validation/languageValidator.ts";
import { validateCandidates } from "../validation/validationPipeline.ts";
import {
  type GeneratedPrompt,
  type GenerationRequest,
  type GenerationResponse,
  heldEmptySummary,
} from "../wire.ts";
import { type PromptTemplate, TEMPLATES_BY_LANGUAGE } from "./templates/index.ts";

/**
 * The builtin generator (the default; offline, deterministic for the same request): for each seed
 * topic, highest volume first, the language's question templates filled with the topic and the
 * brand, interleaved with the catalogue's own example prompts for that topic; then the validation
 * pipeline, which drops what fails and picks the set (intent mix, branded share, topic coverage).
 * The templates start at a different place for each topic, so that the round-robin over topics
 * of the quality stage picks varied questions rather than one template per topic.
 */

/** How far the template list turns from one topic to the next (coprime with 18 templates). */
const ROTATION_STEP = 5;

function fill(template: PromptTemplate, topic: string, brand: string): GeneratedPrompt {
  const [category, text] = template;
  return { prompt: text.replaceAll("{topic}", topic).replaceAll("{brand}", brand), category, topic };
}

/** The candidates, topic by topic: two templates, then one example prompt, and so on. */
export function composeBuiltinCandidates(request: GenerationRequest): GeneratedPrompt[] {
  const templates = TEMPLATES_BY_LANGUAGE[request.language_code] ?? [];
  if (templates.length === 0) return [];
  const seeds = [...request.catalogue_seeds].sort((a, b) => b.volume - a.volume);
  const candidates: GeneratedPrompt[] = [];
  seeds.forEach((seed, seedIndex) => {
    const offset = (seedIndex * ROTATION_STEP) % templates.length;
    const rotated = [...templates.slice(offset), ...templates.slice(0, offset)];
    const examples = [...seed.example_prompts];
    rotated.forEach((template, index) => {
      candidates.push(fill(template, seed.topic, request.brand));
      if (index % 2 === 1 && examples.length > 0) {
        candidates.push({ prompt: examples.shift()!, category: "", topic: seed.topic });
      }
    });
    for (const example of examples) candidates.push({ prompt: example, category: "", topic: seed.topic });
  });
  return candidates;
}

function heldWithoutCandidates(request: GenerationRequest, reason: string): GenerationResponse {
  return {
    prompts: [],
    language_evidence: [],
    ship_summary: heldEmptySummary(reason),
  };
}

export function createBuiltinGenerator(deps: {
  languageValidator: () => Promise<LanguageValidator>;
}): PromptGenerator {
  return {
    name: "builtin",
    async generate(request: GenerationRequest, options: GenerateOptions = {}): Promise<GenerationResponse> {
      if (options.signal?.aborted) throw new GeneratorError("aborted", "The generation was aborted.");
      if (!TEMPLATES_BY_LANGUAGE[request.language_code]) {
        return heldWithoutCandidates(request, `unsupported-language: ${request.language_code}`);
      }
      if (request.catalogue_seeds.length === 0) return heldWithoutCandidates(request, "no-seeds");
      const validator = await deps.languageValidator();
      return validateCandidates(composeBuiltinCandidates(request), request, validator);
    },
  };
}
