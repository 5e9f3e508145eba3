/**
 * Language validation with the `eld` detector (spec/generation.md §4, §7; ADR 0010).
 *
 * eld's scores are not probabilities and its `isReliable()` is true on wrong answers too, so the
 * confidence is ours: the detected (top) language must be the market's language AND the relative
 * margin `(top − second) / top` of the scores must reach LANGUAGE_MARGIN_THRESHOLD. The threshold
 * was measured on the labelled set in test/fixtures/language-set.json (bench/language-validation.ts):
 * the largest margin of a wrong detection there is 0.006; 0.03 rejects every wrong one with a 5×
 * safety factor and still accepts ≥ 99 % of the correct ones (0.05 would drop to 97.6 %).
 *
 * Each validator owns private eld instances (`newInstance()`): a language subset is per instance,
 * and setting it on the shared default export would change every other user's results. The subset
 * is the seven market languages the product supports, plus the market's own language when it is
 * another one eld knows: restricting the candidates to plausible market languages is what made
 * eld's `large` database reach 0 wrong acceptances (the full 60 confuse es with ca and ro).
 *
 * The `large` database (~140 MB of heap once parsed) is imported lazily, on the first validator,
 * so a process that never validates (an API without previews) never pays for it. The smaller
 * databases were measured too and accept wrong-language texts at any threshold that keeps
 * correct-accept ≥ 98 % (ADR 0010).
 */

export const LANGUAGE_MARGIN_THRESHOLD = 0.03;

/** The market languages generation supports end to end (builtin templates, the labelled set). */
export const SUPPORTED_LANGUAGES = ["en", "fr", "de", "es", "it", "pt", "nl"] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

export function isSupportedLanguage(value: string): value is SupportedLanguage {
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(value);
}

export interface LanguageCheck {
  /** The detector's top language among the candidates, or null when it found none. */
  detected: string | null;
  /** `(top − second) / top`, rounded to 4 decimals; 0 when there is no score. */
  margin: number;
  passed: boolean;
}

export interface LanguageValidator {
  readonly threshold: number;
  check(text: string, language: string): LanguageCheck;
}

interface EldInstance {
  detect(text: string): { language: string; getScores(): Record<string, number> };
  setLanguageSubset(languages: string[] | false): Record<number, string>;
  info(): { Languages: Record<number, string> };
  newInstance(): EldInstance;
}

let eldModule: Promise<EldInstance> | undefined;

function loadEld(): Promise<EldInstance> {
  eldModule ??= import("eld/large").then((module) => module.default as unknown as EldInstance);
  return eldModule;
}

/** The relative margin of the two best scores: 1 when only one language scored, 0 when none. */
export function relativeMargin(scores: Record<string, number>): number {
  const [top = 0, second = 0] = Object.values(scores).sort((a, b) => b - a);
  if (top <= 0) return 0;
  return Math.round(((top - second) / top) * 10_000) / 10_000;
}

export async function createLanguageValidator(
  options: { threshold?: number } = {},
): Promise<LanguageValidator> {
  const base = await loadEld();
  const known = new Set(Object.values(base.info().Languages));
  const threshold = options.threshold ?? LANGUAGE_MARGIN_THRESHOLD;
  const instances = new Map<string, EldInstance>();

  /** One private instance per subset: the seven, or the seven plus another market language. */
  function instanceFor(language: string): EldInstance | undefined {
    if (!known.has(language)) return undefined;
    const key = isSupportedLanguage(language) ? "supported" : language;
    let instance = instances.get(key);
    if (!instance) {
      instance = base.newInstance();
      const subset: string[] = [...SUPPORTED_LANGUAGES];
      if (!isSupportedLanguage(language)) subset.push(language);
      instance.setLanguageSubset(subset);
      instances.set(key, instance);
    }
    return instance;
  }

  return {
    threshold,
    check(text, language) {
      const market = language.trim().toLowerCase().split(/[-_]/)[0] ?? "";
      const instance = instanceFor(market);
      // A language the detector does not know cannot be confirmed: fail closed.
      if (!instance) return { detected: null, margin: 0, passed: false };
      const result = instance.detect(text);
      const detected = result.language === "" ? null : result.language;
      const margin = detected ? relativeMargin(result.getScores()) : 0;
      return { detected, margin, passed: detected === market && margin >= threshold };
    },
  };
}
