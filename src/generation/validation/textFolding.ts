/**
 * Text folding for comparisons (§7 de-duplication, grounding, brand mentions): case-, accent- and
 * punctuation-insensitive. "Crème  hydratante, visage!" and "creme hydratante visage" fold alike.
 */
export function foldText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLocaleLowerCase("en")
    .replace(/ß/g, "ss")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

export function foldedWords(text: string): string[] {
  const folded = foldText(text);
  return folded === "" ? [] : folded.split(" ");
}

/** True when `phrase` (already folded) occurs in `folded` as whole words. */
export function containsPhrase(folded: string, phrase: string): boolean {
  if (phrase === "") return false;
  return ` ${folded} `.includes(` ${phrase} `);
}
