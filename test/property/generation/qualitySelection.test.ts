import fc from "fast-check";
import { describe, expect, it } from "vitest";

import {
  brandedLimits,
  intentQuotas,
  perTopicCap,
  type QualityCandidate,
  selectByQuality,
} from "../../../src/generation/validation/qualitySelection.ts";
import { PROMPT_CATEGORIES } from "../../../src/generation/wire.ts";

const candidate: fc.Arbitrary<QualityCandidate & { id: number }> = fc.record({
  id: fc.nat(),
  category: fc.constantFrom(...PROMPT_CATEGORIES),
  topic: fc.option(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"), { nil: null }),
  topicRank: fc.nat({ max: 8 }),
  branded: fc.boolean(),
});

describe("quality selection (§7 stage 4)", () => {
  it("apportions the target mix exactly", () => {
    expect(intentQuotas(50)).toEqual({
      comparative: 18,
      solution: 18,
      task: 7,
      informational: 5,
      pain_point: 2,
    });
    expect(intentQuotas(20)).toEqual({
      comparative: 7,
      solution: 7,
      task: 3,
      informational: 2,
      pain_point: 1,
    });
    for (let size = 0; size <= 100; size += 1) {
      expect(Object.values(intentQuotas(size)).reduce((a, b) => a + b, 0)).toBe(size);
    }
    expect(brandedLimits(50)).toEqual({ min: 5, target: 10, max: 15 });
    expect(brandedLimits(2)).toEqual({ min: 1, target: 1, max: 1 });
    expect(perTopicCap(50)).toBe(10);
    expect(perTopicCap(7)).toBe(2);
  });

  it("never keeps more than asked, a category above half, a topic above ceil(n/5), or branded above 30 %", () => {
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 120 }),
        fc.integer({ min: 1, max: 60 }),
        (candidates, n) => {
          const kept = selectByQuality(candidates, n);
          expect(kept.length).toBeLessThanOrEqual(Math.min(n, candidates.length));
          for (const item of kept) expect(candidates).toContain(item);
          expect(new Set(kept).size).toBe(kept.length);
          const count = (predicate: (c: QualityCandidate) => boolean) => kept.filter(predicate).length;
          if (kept.length > 0) {
            for (const category of PROMPT_CATEGORIES) {
              expect(count((c) => c.category === category)).toBeLessThanOrEqual(
                Math.max(1, Math.floor(kept.length / 2)),
              );
            }
            expect(count((c) => c.branded)).toBeLessThanOrEqual(brandedLimits(kept.length).max);
          }
          for (const topic of "abcdefgh") {
            expect(count((c) => c.topic === topic)).toBeLessThanOrEqual(perTopicCap(n));
          }
        },
      ),
    );
  });

  it("prefers grounded candidates: an ungrounded one is kept only when no grounded one could take its place", () => {
    const grounded = PROMPT_CATEGORIES.flatMap((category, index) =>
      Array.from({ length: 4 }, (_, k) => ({
        category,
        topic: `t${(index * 4 + k) % 10}`,
        topicRank: (index * 4 + k) % 10,
        branded: k === 0,
      })),
    );
    const ungrounded = PROMPT_CATEGORIES.map((category) => ({
      category,
      topic: null,
      topicRank: 10,
      branded: false,
    }));
    const kept = selectByQuality([...ungrounded, ...grounded], 10);
    expect(kept).toHaveLength(10);
    expect(kept.every((c) => c.topic !== null)).toBe(true);
  });
});
