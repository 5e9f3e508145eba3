import { promptType } from "../../domain/brandedText.ts";
import type {
  GeneratedPrompt,
  GenerationRequest,
  GenerationResponse,
  LanguageEvidence,
  PromptCategory,
} from "../wire.ts";
import { firstOfEachDuplicate } from "./deduplication.ts";
import { hardCheckFailure } from "./hardChecks.ts";
import type { LanguageValidator } from "./languageValidator.ts";
import { categoryOf, groundingTopic } from "./promptTraits.ts";
import { selectByQuality } from "./qualitySelection.ts";

/**
 * The one validation pipeline every generator's candidates go through (spec/generation.md §7):
 * hard checks → de-duplication → language → quality ranking → verdict. Each stage's count lands
 * in `ship_summary` (see wire.ts for what each count means). Deterministic for the same input.
 */

/** The fewest prompts a `ship` needs: `min(num_prompts, 5)`. */
export function minimumToShip(numPrompts: number): number {
  return Math.min(numPrompts, 5);
}

interface Survivor {
  prompt: string;
  category: PromptCategory;
  topic: string | null;
  topicRank: number;
  branded: boolean;
  evidence: LanguageEvidence;
}

function cleanText(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

export function validateCandidates(
  candidates: readonly GeneratedPrompt[],
  request: GenerationRequest,
  validator: LanguageValidator,
): GenerationResponse {
  const language = request.language_code;
  const brandNames = [request.brand, ...request.brand_aliases];
  const seeds = request.catalogue_seeds
    .map((seed) => ({ topic: seed.topic, volume: seed.volume }))
    .sort((a, b) => b.volume - a.volume);
  const rankOf = new Map(seeds.map((seed, index) => [seed.topic, index]));
  const seedTopics = new Set(seeds.map((seed) => seed.topic));

  const cleaned = candidates.map((candidate) => ({ ...candidate, prompt: cleanText(candidate.prompt) }));
  const hardValid = cleaned.filter(
    (candidate) => hardCheckFailure(candidate.prompt, { language, brandNames }) === null,
  );
  const unique = firstOfEachDuplicate(hardValid, (candidate) => candidate.prompt, language);

  const survivors: Survivor[] = [];
  for (const candidate of unique.kept) {
    const check = validator.check(candidate.prompt, language);
    if (!check.passed) continue;
    // A topic a generator names is trusted only when it is one of the seeds; else read the text.
    const topic =
      candidate.topic !== undefined && seedTopics.has(candidate.topic)
        ? candidate.topic
        : groundingTopic(candidate.prompt, seeds, language);
    survivors.push({
      prompt: candidate.prompt,
      category: categoryOf(candidate.category, candidate.prompt, language),
      topic,
      topicRank: topic === null ? seeds.length : (rankOf.get(topic) ?? seeds.length),
      branded:
        promptType(candidate.prompt, { name: request.brand, aliases: request.brand_aliases }) === "branded",
      evidence: {
        detected_language: check.detected,
        language_confidence: check.margin,
        language_validation_passed: true,
      },
    });
  }
  const languageRejected = unique.kept.length - survivors.length;
  const kept = selectByQuality(survivors, request.num_prompts);

  const needed = minimumToShip(request.num_prompts);
  const ship = kept.length >= needed;
  return {
    prompts: kept.map((survivor) =>
      survivor.topic === null
        ? { prompt: survivor.prompt, category: survivor.category }
        : { prompt: survivor.prompt, category: survivor.category, topic: survivor.topic },
    ),
    language_evidence: kept.map((survivor) => survivor.evidence),
    ship_summary: {
      generated: candidates.length,
      hard_validated: hardValid.length,
      guardrail_dropped: unique.dropped,
      language_rejected: languageRejected,
      quality_downranked: survivors.length - kept.length,
      final_count: kept.length,
      verdict: ship ? "ship" : "held",
      error_category: null,
      reason: ship
        ? "ok"
        : `insufficient-prompts: ${kept.length} of the ${needed} required survived validation` +
          ` (generated ${candidates.length}, hard-check failures ${candidates.length - hardValid.length},` +
          ` duplicates ${unique.dropped}, wrong language ${languageRejected})`,
    },
  };
}
