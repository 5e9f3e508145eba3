import type { TopicLanguage } from "../countries.ts";
import type { TopicSeed } from "../topicSeeds/types.ts";
import { BANKING_TOPICS } from "./banking.ts";
import { RUNNING_SHOES_TOPICS } from "./runningShoes.ts";
import { SKIN_CARE_TOPICS } from "./skinCare.ts";
import { SOFTWARE_TOPICS } from "./software.ts";
import { TRAVEL_TOPICS } from "./travel.ts";

/**
 * The industries `brand-topics` has a catalogue for, picked from words in the domain's first
 * label ("glow-skincare.example" → skin care, "swiftrun.example" → running shoes) unless the
 * simulator's `industries` setting names one for the domain. Any other domain gets the generic
 * catalogue, which is what the tests' domains (`lumiere.example`, `northwind.example`, …) keep
 * seeing.
 */
export const INDUSTRIES = ["skin-care", "running-shoes", "software", "banking", "travel"] as const;
export type Industry = (typeof INDUSTRIES)[number];

/** What a domain is served: an industry's catalogue, or the generic one. */
export type IndustryChoice = Industry | "generic";

/** First match wins: a domain naming two industries gets the first one listed. */
const DOMAIN_CUES: readonly (readonly [Industry, RegExp])[] = [
  ["skin-care", /skin|beaute|beauty|cosmetic|derma|serum|soin/],
  ["running-shoes", /run|shoe|sneaker|jogg|marathon|trail|laufschuh|chaussure|zapatilla|scarpe|sapatilha/],
  ["software", /soft|saas|cloud|logiciel|crm|devtool|workspace/],
  ["banking", /bank|banque|banca|banco|credit|finan|savings|epargne|sparkasse/],
  ["travel", /travel|trip|tour|voyage|viaje|viaggi|viagem|reizen|holiday|vacation|vacances|cruise|hotel/],
];

const CATALOGUES: Readonly<Record<Industry, Readonly<Record<TopicLanguage, TopicSeed[]>>>> = {
  "skin-care": SKIN_CARE_TOPICS,
  "running-shoes": RUNNING_SHOES_TOPICS,
  software: SOFTWARE_TOPICS,
  banking: BANKING_TOPICS,
  travel: TRAVEL_TOPICS,
};

/**
 * Which catalogue each domain gets, by exact domain, and `*` for every domain the map does not
 * name; a domain under neither key is read from its words. Empty: every domain is read.
 */
export type IndustryMap = Readonly<Record<string, IndustryChoice>>;

/** The host a domain names, lower-cased, without scheme, `www.` or path: the map's key. */
export function domainKey(domain: string): string {
  return (
    domain
      .trim()
      .toLowerCase()
      .replace(/^[a-z]+:\/\//, "")
      .replace(/^www\./, "")
      .split(/[/?#]/)[0] ?? ""
  );
}

/** The industry a domain's first label names, or null (the generic catalogue). */
export function industryOfDomain(domain: string): Industry | null {
  const label = domainKey(domain).split(".")[0] ?? "";
  return DOMAIN_CUES.find(([, cue]) => cue.test(label))?.[0] ?? null;
}

/** The industry a domain is served under a map (the setting), else what its words name. */
export function industryFor(domain: string, map: IndustryMap = {}): Industry | null {
  const key = domainKey(domain);
  const chosen = Object.hasOwn(map, key) ? map[key] : Object.hasOwn(map, "*") ? map["*"] : undefined;
  if (chosen === undefined) return industryOfDomain(domain);
  return chosen === "generic" ? null : chosen;
}

function isChoice(value: string): value is IndustryChoice {
  return value === "generic" || (INDUSTRIES as readonly string[]).includes(value);
}

/**
 * The text form of the map, as `SERENITY_SIMULATOR_INDUSTRY` holds it: comma-separated entries,
 * `domain=industry` for one domain and a bare `industry` (or `*=industry`) for all others;
 * `generic` serves the generic catalogue. Throws on an unknown industry or an empty entry.
 */
export function parseIndustryMap(text: string): IndustryMap {
  const map: Record<string, IndustryChoice> = {};
  const entries = text.trim() === "" ? [] : text.split(",");
  for (const entry of entries) {
    const [left, right] = entry.includes("=") ? entry.split("=", 2) : ["*", entry];
    const key = left!.trim() === "*" ? "*" : domainKey(left!);
    const choice = right!.trim().toLowerCase();
    if (key === "") throw new Error(`an entry names no domain: "${entry.trim()}"`);
    if (!isChoice(choice)) {
      throw new Error(`unknown industry "${choice}" (one of ${[...INDUSTRIES, "generic"].join(", ")})`);
    }
    map[key] = choice;
  }
  return map;
}

export function industryTopics(industry: Industry, language: TopicLanguage): TopicSeed[] {
  return CATALOGUES[industry][language];
}
