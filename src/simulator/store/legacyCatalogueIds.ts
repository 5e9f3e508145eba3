import { modelByKey } from "../catalogue/aiModels.ts";
import { LANGUAGES } from "../catalogue/languages.ts";

/**
 * Catalogue ids of snapshots saved before the simulator served the live catalogues. Its models and
 * languages then had small integer ids, in the orders below (1-based); a dump of that time (the
 * `./.serenity/` state of an earlier `npm start`) carries them in `language_id` and `model_id`.
 * Loading such a dump maps each to the live UUID by model key and language code, so a demo's
 * projects keep their models and language across the upgrade. A legacy language with no live
 * counterpart (Ukrainian, Croatian, Serbian, Slovenian, Lithuanian, Latvian, Estonian) and an
 * unknown number are refused, like any malformed snapshot.
 */
const LEGACY_MODEL_KEYS = [
  "search-gpt",
  "gpt-5",
  "google-ai-overview",
  "google-ai-mode",
  "gemini-2.5-flash",
  "claude-sonnet-4",
  "perplexity",
  "grok-3",
  "deepseek",
  "microsoft-copilot",
];

// Filipino was `tl` then; the live catalogue's code is `fil`.
const LEGACY_LANGUAGE_CODES = [
  "en",
  "fr",
  "de",
  "es",
  "it",
  "pt",
  "nl",
  "pl",
  "sv",
  "da",
  "no",
  "fi",
  "cs",
  "sk",
  "hu",
  "ro",
  "bg",
  "el",
  "tr",
  "ru",
  "uk",
  "hr",
  "sr",
  "sl",
  "lt",
  "lv",
  "et",
  "ja",
  "ko",
  "zh",
  "ar",
  "he",
  "hi",
  "id",
  "ms",
  "th",
  "vi",
  "fil",
];

export function legacyModelId(id: number): string | undefined {
  const key = LEGACY_MODEL_KEYS[id - 1];
  return key === undefined ? undefined : modelByKey(key)?.id;
}

export function legacyLanguageId(id: number): string | undefined {
  const code = LEGACY_LANGUAGE_CODES[id - 1];
  return LANGUAGES.find((language) => language.code === code)?.id;
}
