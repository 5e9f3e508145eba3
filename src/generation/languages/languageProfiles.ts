import { DE_PROFILE } from "./de.ts";
import { EN_PROFILE } from "./en.ts";
import { ES_PROFILE } from "./es.ts";
import { FR_PROFILE } from "./fr.ts";
import { IT_PROFILE } from "./it.ts";
import type { LanguageProfile } from "./languageProfile.ts";
import { NL_PROFILE } from "./nl.ts";
import { PT_PROFILE } from "./pt.ts";

const PROFILES: Readonly<Record<string, LanguageProfile>> = {
  en: EN_PROFILE,
  fr: FR_PROFILE,
  de: DE_PROFILE,
  es: ES_PROFILE,
  it: IT_PROFILE,
  pt: PT_PROFILE,
  nl: NL_PROFILE,
};

/** A language we know nothing about: no stopwords, only the question mark counts, no cues. */
const UNKNOWN_LANGUAGE: LanguageProfile = {
  stopwords: [],
  questionLeads: [],
  cues: { comparative: [], pain_point: [], task: [], solution: [] },
};

export function languageProfile(language: string): LanguageProfile {
  return PROFILES[language.toLowerCase().split(/[-_]/)[0] ?? ""] ?? UNKNOWN_LANGUAGE;
}
