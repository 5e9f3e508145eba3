import type { TopicLanguage } from "../countries.ts";
import type { TopicSeed } from "../topicSeeds/types.ts";
import { SKIN_CARE_TOPICS } from "./skinCare.ts";

/**
 * The industries `brand-topics` has a catalogue for, picked from words in the domain's first
 * label ("glow-skincare.example" → skin care). Any other domain gets the generic catalogue, which
 * is what the tests' domains (`lumiere.example`, `acme-shoes.com`, …) keep seeing.
 */
export type Industry = "skin-care";

const DOMAIN_CUES: readonly (readonly [Industry, RegExp])[] = [
  ["skin-care", /skin|beaute|beauty|cosmetic|derma|serum|soin/],
];

const CATALOGUES: Readonly<Record<Industry, Readonly<Record<TopicLanguage, TopicSeed[]>>>> = {
  "skin-care": SKIN_CARE_TOPICS,
};

/** The industry a domain's first label names, or null (the generic catalogue). */
export function industryOfDomain(domain: string): Industry | null {
  const label =
    domain
      .trim()
      .toLowerCase()
      .replace(/^[a-z]+:\/\//, "")
      .replace(/^www\./, "")
      .split(/[./?#]/)[0] ?? "";
  return DOMAIN_CUES.find(([, cue]) => cue.test(label))?.[0] ?? null;
}

export function industryTopics(industry: Industry, language: TopicLanguage): TopicSeed[] {
  return CATALOGUES[industry][language];
}
