/**
 * Countries the simulator knows: ISO-3166 numeric code (a market's `geoTargetId`/`location_id` is
 * `2000 + numeric`) and the language whose topic seeds `brand-topics` serves for that country.
 * Countries not listed are still accepted on project create; their location id is only range-checked.
 */
export interface KnownCountry {
  numeric: number;
  topicLanguage: TopicLanguage;
}

/** The languages `brand-topics` has seed lists for (spec/generation.md: the seven markets). */
export type TopicLanguage = "en" | "fr" | "de" | "es" | "it" | "pt" | "nl";

export const COUNTRIES: Readonly<Record<string, KnownCountry>> = {
  us: { numeric: 840, topicLanguage: "en" },
  gb: { numeric: 826, topicLanguage: "en" },
  ie: { numeric: 372, topicLanguage: "en" },
  ca: { numeric: 124, topicLanguage: "en" },
  au: { numeric: 36, topicLanguage: "en" },
  nz: { numeric: 554, topicLanguage: "en" },
  in: { numeric: 356, topicLanguage: "en" },
  za: { numeric: 710, topicLanguage: "en" },
  sg: { numeric: 702, topicLanguage: "en" },
  fr: { numeric: 250, topicLanguage: "fr" },
  be: { numeric: 56, topicLanguage: "fr" },
  lu: { numeric: 442, topicLanguage: "fr" },
  de: { numeric: 276, topicLanguage: "de" },
  at: { numeric: 40, topicLanguage: "de" },
  ch: { numeric: 756, topicLanguage: "de" },
  es: { numeric: 724, topicLanguage: "es" },
  mx: { numeric: 484, topicLanguage: "es" },
  ar: { numeric: 32, topicLanguage: "es" },
  co: { numeric: 170, topicLanguage: "es" },
  cl: { numeric: 152, topicLanguage: "es" },
  pe: { numeric: 604, topicLanguage: "es" },
  it: { numeric: 380, topicLanguage: "it" },
  nl: { numeric: 528, topicLanguage: "nl" },
  pt: { numeric: 620, topicLanguage: "pt" },
  br: { numeric: 76, topicLanguage: "pt" },
  pl: { numeric: 616, topicLanguage: "en" },
  se: { numeric: 752, topicLanguage: "en" },
  dk: { numeric: 208, topicLanguage: "en" },
  no: { numeric: 578, topicLanguage: "en" },
  fi: { numeric: 246, topicLanguage: "en" },
  jp: { numeric: 392, topicLanguage: "en" },
};

export const MIN_LOCATION_ID = 2000;
export const MAX_LOCATION_ID = 2999;

export function countryByCode(code: string): KnownCountry | undefined {
  return COUNTRIES[code.toLowerCase()];
}
