/**
 * Italian elision, applied to a filled template: the articles and articulated prepositions
 * "lo/la/una/dello/della/…" drop their vowel before a vowel ("la app" → "l'app", "una offerta" →
 * "un'offerta", "della assistenza" → "dell'assistenza"). "di" before a vowel may stay whole in
 * current Italian and is left as written. "a"/"e" before the same vowel take the euphonic d.
 */

const ELIDING =
  "lo|la|una|dello|della|nello|nella|allo|alla|dallo|dalla|sullo|sulla|quello|quella|questo|questa";
const ELISION = new RegExp(`(^|[\\s(«"'’-])(${ELIDING}) ([aàeèéiìoòuùh]\\S*)`, "giu");

/** The euphonic d: "a Aurora" → "ad Aurora", "e Enel" → "ed Enel" (before the same vowel). */
const EUPHONIC = /(^|\s)([ae]) (?=([aàeèé]))/giu;

export function italianGrammar(text: string): string {
  const euphonic = text.replace(EUPHONIC, (whole, lead: string, word: string, next: string) =>
    word.toLowerCase() === next.toLowerCase().normalize("NFD")[0] ? `${lead}${word}d ` : whole,
  );
  return euphonic.replace(ELISION, (_, lead: string, word: string, next: string) => {
    const elided = word.toLowerCase() === "una" ? `${word.slice(0, 2)}'` : `${word.slice(0, -1)}'`;
    return `${lead}${elided}${next}`;
  });
}
