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
import { applyGrammar } from "./grammar/index.ts";
import { type PromptTemplate, TEMPLATES_BY_LANGUAGE } from "./templates/index.ts";
import { inferTopicKind, type TopicKind } from "./topicKinds.ts";

/**
 * The builtin generator (the default; offline, deterministic for the same request): for each seed
 * topic, highest volume first, the catalogue's own example prompts (real questions with volume)
 * first (with the language's elision rules, since a catalogue fills its own `{brand}` too), then
 * the language's question templates that read well with the topic's kind, filled with
 * the topic and the brand and put through the language's elision rules; then the validation
 * pipeline, which drops what fails and picks the set (intent mix, branded share, topic coverage).
 * Its round-robin over topics takes each topic's candidates in this order, so the examples come
 * before any template of the same topic and templates fill what the examples leave open.
 * The templates start at a different place for each topic, so that the picked questions vary
 * rather than repeating one template per topic.
 */

/** How far a kind's template list turns from one topic to the next. */
const ROTATION_STEP = 5;

function fill(template: PromptTemplate, topic: string, brand: string, language: string): GeneratedPrompt {
  const text = template.text.replaceAll("{topic}", topic).replaceAll("{brand}", brand);
  return { prompt: applyGrammar(text, language), category: template.category, topic };
}

function rotate<T>(items: readonly T[], seedIndex: number): T[] {
  if (items.length === 0) return [];
  const offset = (seedIndex * ROTATION_STEP) % items.length;
  return [...items.slice(offset), ...items.slice(0, offset)];
}

/** The templates of a language that read well with a topic of `kind`. */
export function templatesFor(language: string, kind: TopicKind): readonly PromptTemplate[] {
  return (TEMPLATES_BY_LANGUAGE[language] ?? []).filter((template) => template.kinds.includes(kind));
}

/** The candidates, topic by topic: the catalogue's example prompts, then the fitting templates. */
export function composeBuiltinCandidates(request: GenerationRequest): GeneratedPrompt[] {
  const language = request.language_code;
  if ((TEMPLATES_BY_LANGUAGE[language] ?? []).length === 0) return [];
  const seeds = [...request.catalogue_seeds].sort((a, b) => b.volume - a.volume);
  const candidates: GeneratedPrompt[] = [];
  seeds.forEach((seed, seedIndex) => {
    for (const example of seed.example_prompts) {
      candidates.push({ prompt: applyGrammar(example, language), category: "", topic: seed.topic });
    }
    const templates = templatesFor(language, inferTopicKind(seed.topic));
    // Non-branded questions first: the examples before them are mostly branded already, and the
    // branded share would cut branded templates anyway.
    const unbranded = templates.filter((template) => !template.text.includes("{brand}"));
    const branded = templates.filter((template) => template.text.includes("{brand}"));
    for (const template of [...rotate(unbranded, seedIndex), ...rotate(branded, seedIndex)]) {
      candidates.push(fill(template, seed.topic, request.brand, language));
    }
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
