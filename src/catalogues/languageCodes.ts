/**
 * ISO-639 language codes ↔ the upstream language catalogue. The catalogue serves only `{id, name}`
 * with English names, so a code is matched through its English display name from `Intl`
 * (en → "English", tl → "Filipino"). Pure functions, no I/O.
 */
const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** The English name of a 2–3 letter language code (any case); undefined when Intl does not know it. */
export function languageNameFor(code: string): string | undefined {
  if (!/^[A-Za-z]{2,3}$/.test(code)) return undefined;
  try {
    return languageNames.of(code.toLowerCase()) ?? undefined;
  } catch {
    return undefined;
  }
}

function isCanonical(code: string): boolean {
  return Intl.getCanonicalLocales(code)[0] === code;
}

const codesByName = new Map<2 | 3, Map<string, string>>();

function codeMap(length: 2 | 3): Map<string, string> {
  let map = codesByName.get(length);
  if (!map) {
    map = new Map();
    const walk = (prefix: string) => {
      if (prefix.length === length) {
        const english = languageNameFor(prefix)?.toLowerCase();
        // A deprecated alias ("mo" for Romanian) gives way to the canonical code ("ro").
        if (english && (!map!.has(english) || (!isCanonical(map!.get(english)!) && isCanonical(prefix))))
          map!.set(english, prefix);
        return;
      }
      for (const letter of LETTERS) walk(prefix + letter);
    };
    walk("");
    codesByName.set(length, map);
  }
  return map;
}

/**
 * Names of the live language catalogue that no two-letter `Intl` display name matches, with their
 * code: "Chinese Simplified" is `zh` (`Intl` says "Chinese"); "Chinese Traditional" (zh-TW) has no
 * two- or three-letter code (`null`), said here so that the catalogue never costs the three-letter
 * walk below (≈ 0.7 s of blocked event loop per process on a loaded machine).
 */
const CATALOGUE_NAMES: ReadonlyMap<string, string | null> = new Map([
  ["chinese simplified", "zh"],
  ["chinese traditional", null],
]);

/**
 * The ISO code of an English language name ("French" → "fr"), preferring the two-letter code.
 * Built lazily per process by walking the code space: 676 Intl lookups for two letters, and the
 * three-letter space (17,576 lookups, a few hundred ms once) only for a name the first misses.
 */
export function codeForLanguageName(name: string): string | undefined {
  const key = name.trim().toLowerCase();
  const known = CATALOGUE_NAMES.get(key);
  if (known !== undefined) return known ?? undefined;
  return codeMap(2).get(key) ?? codeMap(3).get(key);
}
