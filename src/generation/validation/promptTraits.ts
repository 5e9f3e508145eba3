import type { IntentCue } from "../languages/languageProfile.ts";
import { languageProfile } from "../languages/languageProfiles.ts";
import { isPromptCategory, type PromptCategory } from "../wire.ts";
import { containsPhrase, foldedWords, foldText } from "./textFolding.ts";
import { containsAny } from "./wordMatcher.ts";

/**
 * What the quality stage (§7) and the job's tagging read from a prompt's text: whether it names
 * the brand (`type`, src/domain/brandedText.ts: the one classifier), which seed topic it is grounded in, and its intent when the generator gave
 * none of ours. All derived from the text, never trusted from a generator (except a category
 * that is one of ours).
 */

const CUE_ORDER: readonly IntentCue[] = ["comparative", "pain_point", "task", "solution"];

/** The intent a text suggests in its language; informational when nothing else does. */
export function inferCategory(text: string, language: string): PromptCategory {
  const folded = foldText(text);
  const { cues } = languageProfile(language);
  return CUE_ORDER.find((category) => containsAny(folded, cues[category])) ?? "informational";
}

/** The generator's category when it is one of ours, else the one the text suggests. */
export function categoryOf(category: string, text: string, language: string): PromptCategory {
  const given = category.trim().toLowerCase();
  return isPromptCategory(given) ? given : inferCategory(text, language);
}

/** Plural-insensitive word identity: "abonnements" and "abonnement" are one word. */
function stem(word: string): string {
  return word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : word;
}

export interface SeedTopic {
  topic: string;
  volume: number;
}

/**
 * The highest-volume seed topic the text mentions: the whole topic phrase, or at least half of
 * its content words (plural-insensitive). Null when the text mentions none (ungrounded).
 */
export function groundingTopic(text: string, seeds: readonly SeedTopic[], language: string): string | null {
  const folded = foldText(text);
  const words = new Set(foldedWords(text).map(stem));
  const stopwords = new Set(languageProfile(language).stopwords);
  let best: SeedTopic | null = null;
  for (const seed of seeds) {
    if (best && seed.volume <= best.volume) continue;
    const phrase = foldText(seed.topic);
    const content = [...new Set(foldedWords(seed.topic).filter((word) => !stopwords.has(word)))].map(stem);
    const matched = content.filter((word) => words.has(word)).length;
    if (containsPhrase(folded, phrase) || (content.length > 0 && matched * 2 >= content.length)) best = seed;
  }
  return best?.topic ?? null;
}
