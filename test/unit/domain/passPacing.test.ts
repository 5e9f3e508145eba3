import { describe, expect, it } from "vitest";

import { awaitTurn, paceOffsetMs } from "../../../src/domain/passPacing.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { track } from "../../support/wait.ts";

describe("paceOffsetMs", () => {
  it("spreads n items evenly over the spread: item i starts i × spread / n in", () => {
    expect([0, 1, 2, 3].map((i) => paceOffsetMs(i, 4, 60_000))).toEqual([0, 15_000, 30_000, 45_000]);
  });

  it("never paces without a spread or items, and never past the spread", () => {
    expect(paceOffsetMs(3, 4, 0)).toBe(0);
    expect(paceOffsetMs(3, 0, 60_000)).toBe(0);
    expect(paceOffsetMs(9, 4, 60_000)).toBe(60_000);
  });
});

describe("awaitTurn", () => {
  it("waits for the item's turn on the clock, and not at all when the pass is already late", async () => {
    const clock = new ManualClock();
    const started = clock.now().getTime();
    const pace = { spreadMs: 60_000 };
    expect(await awaitTurn(clock, pace, started, 0, 3)).toBe(true); // the first goes at once
    const secondTurn = awaitTurn(clock, pace, started, 1, 3);
    const second = track(secondTurn);
    await clock.untilSleeping(1);
    clock.advance(19_999);
    await Promise.resolve();
    expect(second.settled).toBe(false);
    clock.advance(1);
    expect(await secondTurn).toBe(true);
    clock.advance(40_000); // the third's turn (40 s) has passed: no wait
    expect(await awaitTurn(clock, pace, started, 2, 3)).toBe(true);
    expect(clock.pendingSleeps).toBe(0);
  });

  it("ends the wait, answering false, when the loop stops", async () => {
    const clock = new ManualClock();
    const stopping = new AbortController();
    const started = clock.now().getTime();
    const turn = awaitTurn(clock, { spreadMs: 60_000, signal: stopping.signal }, started, 1, 2);
    await clock.untilSleeping(1);
    stopping.abort();
    expect(await turn).toBe(false);
    expect(await awaitTurn(clock, { spreadMs: 60_000, signal: stopping.signal }, started, 0, 2)).toBe(false);
  });

  it("without a pace (a CLI run, a direct call) never waits", async () => {
    const clock = new ManualClock();
    expect(await awaitTurn(clock, undefined, clock.now().getTime(), 5, 6)).toBe(true);
    expect(clock.pendingSleeps).toBe(0);
  });
});
