import { frenchGrammar } from "./french.ts";
import { italianGrammar } from "./italian.ts";

/**
 * The spelling rules a filled template needs in its language once its slots are filled. The
 * templates themselves are written so that a slot needs no article, gender or case (German puts
 * the topic after "beim Thema", French after "en matière de"), which leaves only the sound
 * rules at the slot's edge: French and Italian elision and contraction.
 */
const RULES: Readonly<Record<string, (text: string) => string>> = {
  fr: frenchGrammar,
  it: italianGrammar,
};

export function applyGrammar(text: string, language: string): string {
  return RULES[language]?.(text) ?? text;
}
