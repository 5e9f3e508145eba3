import { beforeAll, describe, expect, it } from "vitest";

import { inferTopicKind } from "../../../../../src/generation/builtin/topicKinds.ts";
import {
  createLanguageValidator,
  type LanguageValidator,
} from "../../../../../src/generation/validation/languageValidator.ts";
import { brandTopicsFor, topicLanguageFor } from "../../../../../src/simulator/catalogue/brandTopics.ts";
import {
  INDUSTRIES,
  industryFor,
  industryOfDomain,
  industryTopics,
  parseIndustryMap,
} from "../../../../../src/simulator/catalogue/industries/industries.ts";
import { EN_TOPICS } from "../../../../../src/simulator/catalogue/topicSeeds/en.ts";
import { resolveSettings } from "../../../../../src/simulator/settings.ts";

const COUNTRIES = ["us", "fr", "de", "es", "it", "pt", "nl"];

/** A domain of each industry, as its words name it, and the brand the catalogue names. */
const DOMAINS = {
  "skin-care": { domain: "glow-skincare.example", brand: "Glow Skincare" },
  "running-shoes": { domain: "swiftrun.example", brand: "Swiftrun" },
  software: { domain: "nimbussoft.example", brand: "Nimbussoft" },
  banking: { domain: "harbor-bank.example", brand: "Harbor Bank" },
  travel: { domain: "bluesky-travel.example", brand: "Bluesky Travel" },
} as const;

const texts = (entries: { topic?: string }[]) => new Set(entries.map((entry) => entry.topic ?? ""));

describe("brand-topics by industry: which catalogue a domain gets", () => {
  it("reads the industry from the domain's first label; other domains get none", () => {
    expect(industryOfDomain("glow-skincare.example")).toBe("skin-care");
    expect(industryOfDomain("https://www.beaute-paris.fr/shop")).toBe("skin-care");
    expect(industryOfDomain("swiftrun.example")).toBe("running-shoes");
    expect(industryOfDomain("acme-shoes.com")).toBe("running-shoes");
    expect(industryOfDomain("nimbussoft.example")).toBe("software");
    expect(industryOfDomain("cloudcrm.io")).toBe("software");
    expect(industryOfDomain("harbor-bank.example")).toBe("banking");
    expect(industryOfDomain("www.banque-du-sud.fr")).toBe("banking");
    expect(industryOfDomain("bluesky-travel.example")).toBe("travel");
    expect(industryOfDomain("viajes-sol.es")).toBe("travel");
    expect(industryOfDomain("lumiere.example")).toBeNull();
    expect(industryOfDomain("northwind.example")).toBeNull();
    // Only the first label counts: a path or a later label naming an industry does not.
    expect(industryOfDomain("acme.com/skin")).toBeNull();
    expect(industryOfDomain("acme.travel")).toBeNull();
  });

  it("lets the setting override the domain's words, per domain and for all others", () => {
    const map = parseIndustryMap("lumiere.example=travel, swiftrun.example=generic");
    expect(industryFor("lumiere.example", map)).toBe("travel");
    expect(industryFor("https://www.Lumiere.example/fr", map)).toBe("travel");
    expect(industryFor("swiftrun.example", map)).toBeNull();
    // A domain the map does not name is still read from its words.
    expect(industryFor("harbor-bank.example", map)).toBe("banking");
    expect(industryFor("northwind.example", map)).toBeNull();

    const all = parseIndustryMap("banking");
    expect(industryFor("northwind.example", all)).toBe("banking");
    expect(industryFor("swiftrun.example", all)).toBe("banking");
    const mixed = parseIndustryMap("northwind.example=software,*=generic");
    expect(industryFor("northwind.example", mixed)).toBe("software");
    expect(industryFor("glow-skincare.example", mixed)).toBeNull();
    expect(parseIndustryMap("")).toEqual({});
  });

  it("refuses an unknown industry or an entry without a domain", () => {
    expect(() => parseIndustryMap("fashion")).toThrow(/unknown industry "fashion"/);
    expect(() => parseIndustryMap("lumiere.example=shoes")).toThrow(/unknown industry/);
    expect(() => parseIndustryMap("=banking")).toThrow(/names no domain/);
    expect(() => resolveSettings({ industries: { "*": "fashion" as "banking" } })).toThrow();
  });

  it("serves the catalogue the setting names", () => {
    const overridden = brandTopicsFor("northwind.example", "us", { "northwind.example": "travel" });
    const travel = texts(industryTopics("travel", "en"));
    for (const topic of texts(overridden)) expect(travel.has(topic), topic).toBe(true);
    expect(texts(overridden).has("cruises")).toBe(true);
    // `generic` takes a domain that names an industry back to the generic catalogue.
    const generic = brandTopicsFor("swiftrun.example", "us", { "*": "generic" });
    const seeds = texts(EN_TOPICS);
    for (const topic of texts(generic)) expect(seeds.has(topic), topic).toBe(true);
    expect(texts(generic).has("road running shoes")).toBe(false);
  });
});

describe.each(INDUSTRIES)("the %s catalogue", (industry) => {
  const { domain, brand } = DOMAINS[industry];
  let validator: LanguageValidator;
  beforeAll(async () => {
    validator = await createLanguageValidator();
  });

  it.each(COUNTRIES)("answers its own topics and example prompts, with the gaps (%s)", (country) => {
    const topics = brandTopicsFor(domain, country);
    const generic = brandTopicsFor("lumiere.example", country);
    const own = texts(industryTopics(industry, topicLanguageFor(country)));
    for (const topic of texts(topics)) expect(own.has(topic), topic).toBe(true);
    const named = [...texts(topics)].filter((topic) => topic !== "");
    const shared = named.filter((topic) => texts(generic).has(topic));
    // Mostly the industry's own topics: a few ("alternatives", "pricing and plans") are everyone's.
    expect(shared.length, shared.join(", ")).toBeLessThan(named.length / 2);
    expect(topics.filter((entry) => entry.topic && entry.prompts.length > 0).length).toBeGreaterThanOrEqual(
      8,
    );
    expect(topics.some((entry) => entry.prompts.some((prompt) => prompt.includes(brand)))).toBe(true);
    expect(topics.every((entry) => entry.prompts.every((prompt) => !prompt.includes("{brand}")))).toBe(true);
    // The gaps live catalogues have: no text (empty or absent), no examples.
    expect(topics.some((entry) => entry.topic === "")).toBe(true);
    expect(topics.some((entry) => !("topic" in entry))).toBe(true);
    expect(topics.some((entry) => entry.topic && entry.prompts.length === 0)).toBe(true);
    // No kind on the wire: the contract has none.
    expect(topics.every((entry) => !("kind" in entry))).toBe(true);
    expect(brandTopicsFor(domain, country)).toEqual(topics);
  });

  it.each(COUNTRIES)(
    "names a kind for every topic, the one the generator reads from its words (%s)",
    (country) => {
      const language = topicLanguageFor(country);
      const kinds = new Set<string>();
      for (const seed of industryTopics(industry, language)) {
        if (!seed.topic) continue;
        expect(seed.kind, seed.topic).toBeDefined();
        expect(inferTopicKind(seed.topic), seed.topic).toBe(seed.kind);
        kinds.add(seed.kind!);
      }
      // Products, and at least a comparison and a commerce topic beside them.
      for (const kind of ["product", "comparison", "commerce"]) expect(kinds.has(kind), kind).toBe(true);
      expect(kinds.size).toBeGreaterThanOrEqual(4);
    },
  );

  it.each(COUNTRIES)(
    "has example prompts the language validator accepts for the language (%s)",
    (country) => {
      const language = topicLanguageFor(country);
      const rejected = brandTopicsFor(domain, country)
        .flatMap((entry) => entry.prompts)
        .filter((prompt) => !validator.check(prompt, language).passed);
      expect(rejected).toEqual([]);
    },
  );
});
