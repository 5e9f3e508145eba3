import type { PromptCategory } from "../wire.ts";

/**
 * What the validation pipeline needs to know about a market language, all in folded form (lower
 * case, no accents, punctuation as spaces — see textFolding.ts):
 * - `stopwords`: function words, ignored when comparing content words (near-duplicates, grounding);
 * - `questionLeads`: first words (or phrases) that make a text a question or a request even
 *   without a question mark; a trailing `*` matches any ending (`recommend*`);
 * - `cues`: words or phrases that suggest a prompt's intent, used only when a generator did not
 *   give one of our categories. Checked in the order comparative, pain_point, task, solution;
 *   anything else is informational.
 */
export interface LanguageProfile {
  stopwords: readonly string[];
  questionLeads: readonly string[];
  cues: Readonly<Record<IntentCue, readonly string[]>>;
}

export type IntentCue = Exclude<PromptCategory, "informational">;

/** Word lists are written as comma-separated text: one entry per comma, phrases allowed. */
export function list(text: string): string[] {
  return text
    .split(",")
    .map((entry) => entry.trim().replace(/\s+/g, " "))
    .filter((entry) => entry !== "");
}
