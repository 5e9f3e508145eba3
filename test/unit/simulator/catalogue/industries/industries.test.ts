import { describe, expect, it } from "vitest";

import { brandTopicsFor } from "../../../../../src/simulator/catalogue/brandTopics.ts";
import { industryOfDomain } from "../../../../../src/simulator/catalogue/industries/industries.ts";

const COUNTRIES = ["us", "fr", "de", "es", "it", "pt", "nl"];

describe("brand-topics by industry", () => {
  it("reads the industry from the domain's first label; other domains get none", () => {
    expect(industryOfDomain("glow-skincare.example")).toBe("skin-care");
    expect(industryOfDomain("https://www.beaute-paris.fr/shop")).toBe("skin-care");
    expect(industryOfDomain("lumiere.example")).toBeNull();
    expect(industryOfDomain("acme-shoes.com")).toBeNull();
    // Only the first label counts: a path or a later label naming an industry does not.
    expect(industryOfDomain("acme.com/skin")).toBeNull();
  });

  it.each(COUNTRIES)("a skin-care domain gets skin-care topics and example prompts (%s)", (country) => {
    const topics = brandTopicsFor("glow-skincare.example", country);
    const generic = brandTopicsFor("lumiere.example", country);
    const texts = (entries: typeof topics) => new Set(entries.map((entry) => entry.topic ?? ""));
    const shared = [...texts(topics)].filter((topic) => topic !== "" && texts(generic).has(topic));
    // At most "alternatives" is common to both catalogues.
    expect(shared.length).toBeLessThanOrEqual(1);
    expect(topics.filter((entry) => entry.topic && entry.prompts.length > 0).length).toBeGreaterThanOrEqual(
      8,
    );
    expect(topics.some((entry) => entry.prompts.some((prompt) => prompt.includes("Glow Skincare")))).toBe(
      true,
    );
    // The gaps live catalogues have: no text (empty or absent), no examples.
    expect(topics.some((entry) => entry.topic === "")).toBe(true);
    expect(topics.some((entry) => !("topic" in entry))).toBe(true);
    expect(topics.some((entry) => entry.topic && entry.prompts.length === 0)).toBe(true);
    expect(brandTopicsFor("glow-skincare.example", country)).toEqual(topics);
  });
});
