import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { generationJobId } from "../../../src/generation/generationJobId.ts";
import {
  boundSeeds,
  type CatalogueTopic,
  coerceVolume,
  MAX_EXAMPLE_PROMPTS,
  MAX_SEED_TOPICS,
} from "../../../src/generation/seeds.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Catalogue entries as an upstream may send them: gaps, string volumes, junk in the lists. */
const catalogueTopic: fc.Arbitrary<CatalogueTopic> = fc.record(
  {
    topic: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom("", "  ", "serum", "Serum"),
      fc.constant(null),
    ),
    volume: fc.oneof(
      fc.integer({ min: -10, max: 100_000 }),
      fc.double({ noNaN: false }),
      fc.integer({ min: 0, max: 100_000 }).map(String),
      fc.constantFrom("8,100", "n/a", ""),
      fc.constant(undefined),
    ),
    prompts: fc.oneof(
      fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.constant(3 as unknown as string)), {
        maxLength: 14,
      }),
      fc.constant(undefined),
    ),
  },
  { requiredKeys: [] },
);

describe("boundSeeds (spec/generation.md §2 step 2)", () => {
  it("keeps only topics with text, sorted by volume descending, at most 50, at most 10 examples each", () => {
    fc.assert(
      fc.property(fc.array(catalogueTopic, { maxLength: 80 }), (catalogue) => {
        const seeds = boundSeeds(catalogue);
        expect(seeds.length).toBeLessThanOrEqual(MAX_SEED_TOPICS);
        const texts = catalogue.flatMap((entry) =>
          typeof entry.topic === "string" && entry.topic.trim() !== ""
            ? [entry.topic.trim().replace(/\s+/g, " ")]
            : [],
        );
        for (const [index, seed] of seeds.entries()) {
          expect(seed.topic.trim()).not.toBe("");
          expect(texts).toContain(seed.topic);
          expect(Number.isFinite(seed.volume) && seed.volume >= 0).toBe(true);
          expect(seed.examplePrompts.length).toBeLessThanOrEqual(MAX_EXAMPLE_PROMPTS);
          for (const prompt of seed.examplePrompts)
            expect(typeof prompt === "string" && prompt !== "").toBe(true);
          if (index > 0) expect(seeds[index - 1]!.volume).toBeGreaterThanOrEqual(seed.volume);
        }
        // Every distinct topic text is kept unless 50 are already kept.
        const distinct = new Set(texts.map((text) => text.toLocaleLowerCase()));
        expect(seeds.length).toBe(Math.min(MAX_SEED_TOPICS, distinct.size));
        expect(new Set(seeds.map((seed) => seed.topic.toLocaleLowerCase())).size).toBe(seeds.length);
      }),
    );
  });

  it("keeps the highest-volume topics when there are more than 50", () => {
    const catalogue = Array.from({ length: 70 }, (_, index) => ({ topic: `topic ${index}`, volume: index }));
    const seeds = boundSeeds(catalogue);
    expect(seeds).toHaveLength(50);
    expect(seeds[0]).toEqual({ topic: "topic 69", volume: 69, examplePrompts: [] });
    expect(seeds.at(-1)?.topic).toBe("topic 20");
  });

  it("coerces volumes to numbers and keeps ten examples", () => {
    expect(coerceVolume("8100")).toBe(8100);
    expect(coerceVolume("8,100")).toBe(8100);
    expect(coerceVolume(" 720 ")).toBe(720);
    expect([coerceVolume("n/a"), coerceVolume(-5), coerceVolume(Number.NaN), coerceVolume(null)]).toEqual([
      0, 0, 0, 0,
    ]);
    const examples = Array.from({ length: 14 }, (_, index) => `question ${index}?`);
    const [seed] = boundSeeds([
      { topic: "  serum   vitamine c ", volume: "5400", prompts: [...examples, "  ", "question 0?"] },
      { topic: "", volume: 99_999, prompts: ["dropped"] },
      { volume: 99_999, prompts: ["dropped too"] },
    ]);
    expect(seed).toEqual({ topic: "serum vitamine c", volume: 5400, examplePrompts: examples.slice(0, 10) });
  });
});

describe("generationJobId (spec/generation.md §2 step 3)", () => {
  it("is a deterministic v4-shaped UUID of (brandId, geoTargetId, languageCode)", () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.integer({ min: 2000, max: 2999 }),
        fc.constantFrom("en", "fr", "de", "pt"),
        (b, g, l) => {
          const id = generationJobId(b, g, l);
          expect(id).toMatch(UUID_V4);
          expect(generationJobId(b, g, l)).toBe(id);
          expect(generationJobId(b, g, l.toUpperCase())).toBe(id);
          expect(generationJobId(b, g + 1, l)).not.toBe(id);
          expect(generationJobId(`${b}x`, g, l)).not.toBe(id);
        },
      ),
    );
  });

  it("is stable across releases (a changed id would orphan in-flight jobs)", () => {
    expect(generationJobId("0c400d4b-9a1e-4f2b-8c7d-1e2f3a4b5c6d", 2250, "fr")).toBe(
      "c1a06339-b0b6-4aeb-bcce-bb6e51638880",
    );
    expect(generationJobId("b", 2250, "fr")).not.toBe(generationJobId("b", 2250, "de"));
  });
});
