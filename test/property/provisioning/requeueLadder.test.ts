import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { firstPollAtOrAfter, nextPollDelayMs, pollSchedule } from "../../../src/domain/requeueLadder.ts";

const BUDGET_MS = 10 * 60_000;

/** The poll times of the previous system's fixed 5/10/20/40/80 s ladder (the rejected design). */
function originalPollSchedule(budgetMs: number): number[] {
  const ladder = [5_000, 10_000, 20_000, 40_000, 80_000];
  const times = [0];
  for (let hop = 0, at = 0; at < budgetMs; hop++) {
    at += ladder[Math.min(hop, ladder.length - 1)]!;
    times.push(at);
  }
  return times;
}

describe("the requeue ladder", () => {
  it("sees any settle time within max(1 s, 25 %) of it", () => {
    const schedule = pollSchedule(BUDGET_MS);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: BUDGET_MS }), (settleMs) => {
        const seenAt = firstPollAtOrAfter(schedule, settleMs)!;
        expect(seenAt - settleMs).toBeLessThanOrEqual(Math.max(1_000, Math.ceil(0.25 * settleMs)));
      }),
      { numRuns: 5_000 },
    );
  });

  it("bounds the number of hops for the whole settle budget", () => {
    expect(pollSchedule(BUDGET_MS).length).toBeLessThanOrEqual(40);
  });

  it("starts at 1 s and caps at 30 s", () => {
    expect(nextPollDelayMs(0)).toBe(1_000);
    expect(nextPollDelayMs(10_000)).toBe(2_500);
    expect(nextPollDelayMs(500_000)).toBe(30_000);
  });

  it("the original 5/10/20/40/80 s ladder misses the bound (so the property above can fail)", () => {
    const original = originalPollSchedule(BUDGET_MS);
    const settleMs = 35_001; // just after its 35 s poll: next one at 75 s
    expect(firstPollAtOrAfter(original, settleMs)! - settleMs).toBeGreaterThan(
      Math.max(1_000, 0.25 * settleMs),
    );
  });
});
