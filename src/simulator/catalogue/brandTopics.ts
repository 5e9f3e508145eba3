import { countryByCode, type TopicLanguage } from "./countries.ts";
import { industryFor, type IndustryMap, industryTopics } from "./industries/industries.ts";
import { DE_TOPICS } from "./topicSeeds/de.ts";
import { EN_TOPICS } from "./topicSeeds/en.ts";
import { ES_TOPICS } from "./topicSeeds/es.ts";
import { FR_TOPICS } from "./topicSeeds/fr.ts";
import { IT_TOPICS } from "./topicSeeds/it.ts";
import { NL_TOPICS } from "./topicSeeds/nl.ts";
import { PT_TOPICS } from "./topicSeeds/pt.ts";
import type { TopicSeed } from "./topicSeeds/types.ts";

/** One catalogue entry as served: `topic` is absent on the one gap entry that has no text. */
export interface BrandTopic {
  topic?: string;
  volume: number;
  prompts: string[];
}

const SEEDS: Record<TopicLanguage, TopicSeed[]> = {
  en: EN_TOPICS,
  fr: FR_TOPICS,
  de: DE_TOPICS,
  es: ES_TOPICS,
  it: IT_TOPICS,
  pt: PT_TOPICS,
  nl: NL_TOPICS,
};

/** A gap entry (no text or no example prompts): part of every catalogue, as live has them. */
function isGap(seed: TopicSeed): boolean {
  return !seed.topic || seed.prompts.length === 0;
}

/** FNV-1a: a tiny stable hash, so the same domain and country always give the same catalogue. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}

/** "https://www.acme-shoes.co.uk/x" → "Acme Shoes". */
export function brandNameFromDomain(domain: string): string {
  const host = domain
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, "")
    .split(/[/?#]/)[0]!
    .replace(/^www\./, "");
  const label = host.split(".")[0] ?? host;
  const words = label.split(/[-_]+/).filter(Boolean);
  if (words.length === 0) return domain.trim();
  return words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(" ");
}

export function topicLanguageFor(country: string): TopicLanguage {
  return countryByCode(country)?.topicLanguage ?? "en";
}

/**
 * The deterministic `brand-topics` catalogue: the country picks the seed language; the domain picks
 * its industry's catalogue (the simulator's `industries` setting, else the domain's words; the
 * generic one for any other domain, industries/industries.ts) and a
 * stable subset of it (8 to all complete topics, plus every gap entry) in a stable order, and
 * scales each volume by 50 %–150 %.
 */
export function brandTopicsFor(domain: string, country: string, industries: IndustryMap = {}): BrandTopic[] {
  const language = topicLanguageFor(country);
  const brand = brandNameFromDomain(domain);
  const key = `${domain.trim().toLowerCase()}|${country.trim().toLowerCase()}`;
  const industry = industryFor(domain, industries);
  const catalogue = industry === null ? SEEDS[language] : industryTopics(industry, language);
  const complete = catalogue.filter((seed) => !isGap(seed));
  const keep = Math.min(complete.length, 8 + (hash(key) % Math.max(1, complete.length - 7)));
  const ranked = (seeds: TopicSeed[]) =>
    seeds.map((seed, index) => ({ seed, rank: hash(`${key}|${seed.topic ?? `#${index}`}`) }));
  const kept = ranked(complete)
    .sort((a, b) => a.rank - b.rank)
    .slice(0, keep);
  return [...kept, ...ranked(catalogue.filter(isGap))]
    .sort((a, b) => a.rank - b.rank)
    .map(({ seed, rank }) => ({
      ...(seed.topic === undefined ? {} : { topic: seed.topic }),
      volume: Math.round((seed.volume * (50 + (rank % 101))) / 100),
      prompts: seed.prompts.map((prompt) => prompt.replaceAll("{brand}", brand)),
    }));
}
