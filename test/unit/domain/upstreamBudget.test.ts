import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { endpointGroupOf } from "../../../src/domain/endpointGroup.ts";
import {
  ADAPTIVE_INCREASE_EVERY_MS,
  effectiveSlots,
  lowerOn429,
  mayTakeSlot,
  priorityRank,
  slotCountOf,
} from "../../../src/domain/upstreamBudget.ts";

const LIMITS = { slots: 10, windowMs: 1_100 };

describe("slotCountOf", () => {
  it("bounds both published limits with one slot count; 0 on either side is unlimited", () => {
    expect(slotCountOf(10, 10)).toBe(10);
    expect(slotCountOf(5, 10)).toBe(5);
    expect(slotCountOf(10, 4)).toBe(4);
    expect(slotCountOf(0, 10)).toBe(0);
    expect(slotCountOf(10, 0)).toBe(0);
  });
});

describe("endpointGroupOf", () => {
  it("puts every User Manager call in workspaces, prompt tracking in prompts, the rest in projects", () => {
    expect(endpointGroupOf("um", "/v1/workspaces/{ws}/resources")).toBe("workspaces");
    expect(endpointGroupOf("pe", "/v1/workspaces/{ws}/projects/{pid}/aio/prompts")).toBe("promptTracking");
    expect(endpointGroupOf("pe", "/v1/workspaces/{ws}/projects/{pid}/aio/tags")).toBe("promptTracking");
    expect(endpointGroupOf("pe", "/v1/workspaces/{ws}/projects")).toBe("projects");
    expect(endpointGroupOf("pe", "/v1/languages")).toBe("projects");
  });
});

describe("mayTakeSlot (priority admission)", () => {
  const base = { freeSlots: 3, higherWaiters: 0, backgroundHeld: 0, backgroundShare: 3 };

  it("lets interactive work take any free slot", () => {
    expect(mayTakeSlot({ ...base, priority: "interactive", freeSlots: 1 })).toBe(true);
    expect(mayTakeSlot({ ...base, priority: "interactive", freeSlots: 0 })).toBe(false);
  });

  it("leaves a lower priority out while a higher one waits, unless more slots are free than waiters", () => {
    expect(mayTakeSlot({ ...base, priority: "job", freeSlots: 1, higherWaiters: 1 })).toBe(false);
    expect(mayTakeSlot({ ...base, priority: "job", freeSlots: 2, higherWaiters: 1 })).toBe(true);
    expect(mayTakeSlot({ ...base, priority: "background", freeSlots: 2, higherWaiters: 2 })).toBe(false);
  });

  it("never lets background work hold more than its share", () => {
    expect(mayTakeSlot({ ...base, priority: "background", freeSlots: 10, backgroundHeld: 3 })).toBe(false);
    expect(mayTakeSlot({ ...base, priority: "background", freeSlots: 10, backgroundHeld: 2 })).toBe(true);
    // The share caps background only: a job may take what background may not.
    expect(mayTakeSlot({ ...base, priority: "job", freeSlots: 10, backgroundHeld: 3 })).toBe(true);
  });

  it("never admits a lower priority into the last slots a higher waiter needs (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("interactive" as const, "job" as const, "background" as const),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 10 }),
        (priority, freeSlots, higherWaiters, backgroundHeld) => {
          const admitted = mayTakeSlot({
            priority,
            freeSlots,
            higherWaiters,
            backgroundHeld,
            backgroundShare: 3,
          });
          if (admitted) {
            expect(freeSlots - 1).toBeGreaterThanOrEqual(higherWaiters);
            if (priority === "background") expect(backgroundHeld).toBeLessThan(3);
          }
        },
      ),
    );
  });

  it("ranks interactive before job before background", () => {
    expect(priorityRank("interactive")).toBeLessThan(priorityRank("job"));
    expect(priorityRank("job")).toBeLessThan(priorityRank("background"));
  });
});

describe("AIMD on 429s", () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z");

  it("halves the effective slots on a 429, never below 1", () => {
    const once = lowerOn429(undefined, t0, LIMITS);
    expect(once).toEqual({ lowered: 5, loweredAt: t0 });
    let state = once!;
    for (let i = 1; i <= 5; i += 1) {
      const now = t0 + i * LIMITS.windowMs;
      state = lowerOn429(state, now, LIMITS, Number.POSITIVE_INFINITY)!;
    }
    expect(state.lowered).toBe(1);
  });

  it("lowers at most once per window: the calls in flight all meet the same wall", () => {
    const once = lowerOn429(undefined, t0, LIMITS)!;
    expect(lowerOn429(once, t0 + LIMITS.windowMs - 1, LIMITS)).toBeUndefined();
    expect(lowerOn429(once, t0 + LIMITS.windowMs, LIMITS)).toBeDefined();
  });

  it("recovers one slot per quiet step, up to the configured limit", () => {
    const state = { lowered: 2, loweredAt: t0 };
    expect(effectiveSlots(state, t0, 10)).toBe(2);
    expect(effectiveSlots(state, t0 + ADAPTIVE_INCREASE_EVERY_MS - 1, 10)).toBe(2);
    expect(effectiveSlots(state, t0 + ADAPTIVE_INCREASE_EVERY_MS, 10)).toBe(3);
    expect(effectiveSlots(state, t0 + 8 * ADAPTIVE_INCREASE_EVERY_MS, 10)).toBe(10);
    expect(effectiveSlots(state, t0 + 100 * ADAPTIVE_INCREASE_EVERY_MS, 10)).toBe(10);
    expect(effectiveSlots(undefined, t0, 10)).toBe(10);
  });

  it("a decrease after a partial recovery halves the recovered value", () => {
    const state = { lowered: 2, loweredAt: t0 };
    const later = t0 + 4 * ADAPTIVE_INCREASE_EVERY_MS; // recovered to 6
    expect(lowerOn429(state, later, LIMITS)).toEqual({ lowered: 3, loweredAt: later });
  });
});
