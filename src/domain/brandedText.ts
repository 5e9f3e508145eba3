/**
 * The one branded classifier (docs/decisions/0041): whether a prompt's text names the brand or one
 * of its aliases. Every writer of the `type` tag uses it — prompts written or edited through the
 * API, generated prompts, and the re-tagging a changed alias set runs.
 *
 * The rules, applied to the text and to each name alike:
 * - **Case and compatibility forms**: Unicode NFKD, case-folded (`ß` as `ss`); full-width and
 *   half-width forms fold to one.
 * - **Diacritics**: combining marks are dropped, so "Lumière" and "Lumiere" are one name.
 * - **Punctuation** separates words: "Acme's", "(Acme)", "acme.com" all name "Acme".
 * - **Whole words** in scripts that separate words with spaces: "Acme" is not named by "Acmeville".
 * - **Plurals**: a word of the text names a name's word also with an `s` or `es` added, or `y`
 *   turned `ies` (Latin-script plurals of English, French, Spanish, Portuguese, Dutch, Italian
 *   loan use): "Are Lumieres worth it?" names "Lumiere". Other inflections are not guessed.
 * - **Scripts without word spaces** (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar): each of
 *   their characters is a word of its own, so a name in those scripts is found as a run of
 *   characters anywhere ("索尼的耳机" names "索尼"), and a Latin name written against them is
 *   still a whole word ("Sony的耳机" names "Sony").
 */

export type PromptType = "branded" | "non-branded";

/** Characters of scripts that do not separate words with spaces. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/gu;

/** The words of a text as the classifier compares them (see the rules above). */
export function brandWords(text: string): string[] {
  const folded = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(UNSPACED, (char) => ` ${char} `)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  return folded === "" ? [] : folded.split(" ");
}

/** Whether a word of the text is the name's word, or its plural. */
function sameWord(textWord: string, nameWord: string): boolean {
  if (textWord === nameWord) return true;
  if (!/^\p{Script=Latin}+$/u.test(nameWord) || nameWord.length < 2) return false;
  return (
    textWord === `${nameWord}s` ||
    textWord === `${nameWord}es` ||
    (nameWord.endsWith("y") && textWord === `${nameWord.slice(0, -1)}ies`)
  );
}

function namesIn(words: readonly string[], name: readonly string[]): boolean {
  if (name.length === 0) return false;
  for (let start = 0; start + name.length <= words.length; start++) {
    if (name.every((word, offset) => sameWord(words[start + offset]!, word))) return true;
  }
  return false;
}

/** Whether `text` names any of `names` (the brand's name and its aliases). */
export function namesBrand(text: string, names: readonly string[]): boolean {
  const words = brandWords(text);
  return names.some((name) => namesIn(words, brandWords(name)));
}

/** The `type` tag of a prompt of a brand. */
export function promptType(text: string, brand: { name: string; aliases: readonly string[] }): PromptType {
  return namesBrand(text, [brand.name, ...brand.aliases]) ? "branded" : "non-branded";
}
