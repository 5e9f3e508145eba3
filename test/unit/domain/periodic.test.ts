import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { startPeriodic } from "../../../src/domain/periodic.ts";

/** The background loop of the pool sampler and the upstream reconciler, on vitest's fake timers. */
describe("startPeriodic", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function gatedPasses() {
    const gates: (() => void)[] = [];
    const pass = vi.fn(() => new Promise<void>((resolve) => gates.push(resolve)));
    return { pass, gates };
  }

  it("runs a pass every interval, the first one interval after the start", async () => {
    const pass = vi.fn(async () => {});
    const loop = startPeriodic({ everyMs: 1000, pass, onError: () => {} });
    await vi.advanceTimersByTimeAsync(999);
    expect(pass).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(pass).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2000);
    expect(pass).toHaveBeenCalledTimes(3);
    await loop.stop();
  });

  it("never overlaps passes: ticks that find one running are skipped", async () => {
    const { pass, gates } = gatedPasses();
    const loop = startPeriodic({ everyMs: 1000, pass, onError: () => {} });
    await vi.advanceTimersByTimeAsync(5000);
    expect(pass).toHaveBeenCalledTimes(1);
    gates[0]!();
    await vi.advanceTimersByTimeAsync(1000);
    expect(pass).toHaveBeenCalledTimes(2);
    gates[1]!();
    await loop.stop();
  });

  it("stop() clears the timer and waits for the pass in flight", async () => {
    const { pass, gates } = gatedPasses();
    const loop = startPeriodic({ everyMs: 1000, pass, onError: () => {} });
    await vi.advanceTimersByTimeAsync(1000);
    const stopped: string[] = [];
    // Twice, as a shutdown path may: both callers wait for the pass.
    const first = loop.stop().then(() => stopped.push("first"));
    const second = loop.stop().then(() => stopped.push("second"));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toEqual([]);
    gates[0]!();
    await Promise.all([first, second]);
    expect(stopped.sort()).toEqual(["first", "second"]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pass).toHaveBeenCalledTimes(1);
  });

  it("hands a failed pass to onError and goes on", async () => {
    const errors: unknown[] = [];
    const pass = vi.fn().mockRejectedValueOnce(new Error("boom")).mockResolvedValue(undefined);
    const loop = startPeriodic({ everyMs: 1000, pass, onError: (error) => errors.push(error) });
    await vi.advanceTimersByTimeAsync(2000);
    expect(errors).toEqual([new Error("boom")]);
    expect(pass).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it("does not keep the process alive (the timer is unref'd)", async () => {
    const unref = vi.spyOn(globalThis, "setInterval");
    // Restored whatever happens: unit files share one module graph, so a spy left behind would
    // reach the next file.
    try {
      const loop = startPeriodic({ everyMs: 1000, pass: async () => {}, onError: () => {} });
      const timer = unref.mock.results[0]!.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      await loop.stop();
    } finally {
      unref.mockRestore();
    }
  });

  it("reports a pass that outlasts its budget, with its duration, and stays quiet for one that fits", async () => {
    const { pass, gates } = gatedPasses();
    const overruns: number[] = [];
    const loop = startPeriodic({
      everyMs: 1000,
      pass,
      onError: () => {},
      overrunAfterMs: 1500,
      onOverrun: (durationMs) => overruns.push(durationMs),
    });
    await vi.advanceTimersByTimeAsync(1000); // first pass starts
    await vi.advanceTimersByTimeAsync(1000);
    gates[0]!(); // it took 1000 ms: within 1500
    await vi.advanceTimersByTimeAsync(0);
    expect(overruns).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000); // second pass starts
    await vi.advanceTimersByTimeAsync(4000);
    gates[1]!(); // it took 4000 ms
    await vi.advanceTimersByTimeAsync(0);
    expect(overruns).toEqual([4000]);
    await loop.stop();
  });
});
