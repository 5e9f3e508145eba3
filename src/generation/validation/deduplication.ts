import { languageProfile } from "../languages/languageProfiles.ts";
import { foldedWords, foldText } from "./textFolding.ts";

/**
 * Stage 2 (§7): two prompts are duplicates when they fold to the same text (case, accents and
 * punctuation ignored), and near-duplicates when they use the same content words (stopwords of
 * the market language ignored, order ignored): "What is the best CRM for a startup?" and "Which
 * CRM is best for startups" are not the same words, but "best CRM for a startup?" and "the best
 * CRM, for a startup" are. The first occurrence wins.
 */
export function duplicateKey(text: string, language: string): string {
  const stopwords = new Set(languageProfile(language).stopwords);
  const content = [...new Set(foldedWords(text).filter((word) => !stopwords.has(word)))].sort();
  return content.length > 0 ? content.join(" ") : foldText(text);
}

/** Splits `texts` into the first occurrence of each key and the count of the others. */
export function firstOfEachDuplicate<T>(
  items: readonly T[],
  textOf: (item: T) => string,
  language: string,
): { kept: T[]; dropped: number } {
  const seen = new Set<string>();
  const kept: T[] = [];
  for (const item of items) {
    const key = duplicateKey(textOf(item), language);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(item);
  }
  return { kept, dropped: items.length - kept.length };
}
