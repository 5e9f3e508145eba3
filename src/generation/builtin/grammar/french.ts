/**
 * French elision and contraction, applied to a filled template (the brand and the topic may start
 * with a vowel): "de avis" → "d'avis", "que Apple" → "qu'Apple", "le été" → "l'été", and the
 * article contractions "de le" → "du", "de les" → "des", "à le" → "au", "à les" → "aux".
 * A word starting with an aspirated h ("hausse", "héros") keeps its "de".
 */

const ELIDING = "de|que|le|la|je|me|te|se|ne|lorsque|puisque|jusque";
const VOWEL_START = /^[aàâäeéèêëiîïoôöuùûüyœæh]/i;
const ASPIRATED_H =
  /^(hache|haie|haine|hall|halte|hamac|hameau|hanche|handicap|hangar|hardi|haricot|harpe|hasard|hausse|haut|hauteur|héros|hibou|hiérarchie|hockey|homard|honte|hors|housse|hublot|huit|hurl)/i;
const ELISION = new RegExp(`(^|[\\s(«"'’-])(${ELIDING}) (\\S+)`, "giu");

function elide(word: string, next: string): string | null {
  if (!VOWEL_START.test(next) || ASPIRATED_H.test(next)) return null;
  return `${word.slice(0, -1)}'`;
}

export function frenchGrammar(text: string): string {
  const contracted = text
    .replace(/\b([Dd])e les\b/g, "$1es")
    .replace(/\b([Dd])e le\b/g, "$1u")
    .replace(/(^|\s)([Àà]) les\b/g, (_, lead: string, a: string) => `${lead}${a === "À" ? "A" : "a"}ux`)
    .replace(/(^|\s)([Àà]) le\b/g, (_, lead: string, a: string) => `${lead}${a === "À" ? "A" : "a"}u`);
  const once = (input: string) =>
    input.replace(ELISION, (whole, lead: string, word: string, next: string) => {
      const elided = elide(word, next);
      return elided === null ? whole : `${lead}${elided}${next}`;
    });
  // Twice: a match consumes the word after it, so "que le avis" needs a second pass for "le".
  return once(once(contracted));
}
