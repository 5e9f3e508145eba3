import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { bearerHash, type RateLimit, RequestLimiter } from "../../../../src/simulator/http/requestLimiter.ts";
import { StartWindow } from "../../../../src/simulator/http/startWindow.ts";

/** Semrush's published numbers (spec/gateway.md §7). */
const SEMRUSH: RateLimit = { perSecond: 10, concurrent: 10 };
const T0 = 1_000_000;

function burst(limiter: RequestLimiter, count: number, at: number, limit: RateLimit, bearer = "alice") {
  const releases = [];
  let throttled = 0;
  for (let i = 0; i < count; i += 1) {
    const release = limiter.tryStart(bearer, "workspaces", at, limit);
    if (release) releases.push(release);
    else throttled += 1;
  }
  return { releases, throttled };
}

describe("the 1 s sliding window", () => {
  it("admits perSecond starts in one second and throttles the rest, even with nothing in flight", () => {
    const limiter = new RequestLimiter(T0);
    const unlimitedConcurrency = { perSecond: 10, concurrent: 0 };
    let admitted = 0;
    // One call every 10 ms, each answered at once: 100 calls over 0.99 s.
    for (let t = 0; t < 1000; t += 10) {
      const release = limiter.tryStart("alice", "workspaces", T0 + t, unlimitedConcurrency);
      if (release) {
        admitted += 1;
        release();
      }
    }
    expect(admitted).toBe(10);
  });

  it("is sliding, not a fixed second: a start leaves the window exactly 1000 ms later", () => {
    const limiter = new RequestLimiter(T0);
    const limit = { perSecond: 2, concurrent: 0 };
    expect(limiter.tryStart("alice", "workspaces", T0, limit)).toBeDefined();
    expect(limiter.tryStart("alice", "workspaces", T0 + 600, limit)).toBeDefined();
    expect(limiter.tryStart("alice", "workspaces", T0 + 999, limit)).toBeUndefined();
    // The first start is 1000 ms old: out. The second (at 600) is still in.
    expect(limiter.tryStart("alice", "workspaces", T0 + 1000, limit)).toBeDefined();
    expect(limiter.tryStart("alice", "workspaces", T0 + 1500, limit)).toBeUndefined();
    expect(limiter.tryStart("alice", "workspaces", T0 + 1600, limit)).toBeDefined();
  });

  it("recovers fully once the window has passed", () => {
    const limiter = new RequestLimiter(T0);
    const first = burst(limiter, 30, T0, { perSecond: 10, concurrent: 0 });
    expect(first.releases).toHaveLength(10);
    expect(first.throttled).toBe(20);
    const again = burst(limiter, 30, T0 + 1000, { perSecond: 10, concurrent: 0 });
    expect(again.releases).toHaveLength(10);
  });

  it("does not count throttled calls: hammering while throttled does not push recovery back", () => {
    const limiter = new RequestLimiter(T0);
    const limit = { perSecond: 1, concurrent: 0 };
    expect(limiter.tryStart("alice", "workspaces", T0, limit)).toBeDefined();
    for (let t = 1; t < 1000; t += 1)
      expect(limiter.tryStart("alice", "workspaces", T0 + t, limit)).toBeUndefined();
    expect(limiter.tryStart("alice", "workspaces", T0 + 1000, limit)).toBeDefined();
    const [row] = limiter.report();
    expect(row).toMatchObject({ started: 2, throttled: 999, perSecondPeak: 1 });
  });
});

describe("the concurrency cap", () => {
  it("throttles a call while `concurrent` are in flight and admits again after one is answered", () => {
    const limiter = new RequestLimiter(T0);
    const limit = { perSecond: 0, concurrent: 3 };
    const held = burst(limiter, 3, T0, limit);
    expect(limiter.tryStart("alice", "workspaces", T0 + 5000, limit)).toBeUndefined();
    held.releases[0]!();
    expect(limiter.tryStart("alice", "workspaces", T0 + 5000, limit)).toBeDefined();
    expect(limiter.tryStart("alice", "workspaces", T0 + 5000, limit)).toBeUndefined();
  });

  it("a release called twice frees one slot only", () => {
    const limiter = new RequestLimiter(T0);
    const limit = { perSecond: 0, concurrent: 2 };
    const { releases } = burst(limiter, 2, T0, limit);
    releases[0]!();
    releases[0]!();
    expect(limiter.report()[0]!.inFlight).toBe(1);
    expect(burst(limiter, 5, T0, limit).releases).toHaveLength(1);
  });

  it("a throttled call is never in flight", () => {
    const limiter = new RequestLimiter(T0);
    burst(limiter, 25, T0, SEMRUSH);
    expect(limiter.report()[0]).toMatchObject({ started: 10, throttled: 15, inFlight: 10, inFlightPeak: 10 });
  });
});

describe("keys", () => {
  it("counts each (bearer, group) on its own", () => {
    const limiter = new RequestLimiter(T0);
    expect(burst(limiter, 12, T0, SEMRUSH, "alice").releases).toHaveLength(10);
    expect(burst(limiter, 12, T0, SEMRUSH, "bob").releases).toHaveLength(10);
    expect(limiter.tryStart("alice", "projects", T0, SEMRUSH)).toBeDefined();
    expect(limiter.tryStart("alice", "promptTracking", T0, SEMRUSH)).toBeDefined();
    expect(limiter.report().map((row) => [row.bearer, row.group, row.started])).toEqual(
      [
        [bearerHash("alice"), "projects", 1],
        [bearerHash("alice"), "promptTracking", 1],
        [bearerHash("alice"), "workspaces", 10],
        [bearerHash("bob"), "workspaces", 10],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1]))),
    );
  });

  it("reports a short hash, never the bearer", () => {
    const limiter = new RequestLimiter(T0);
    limiter.tryStart("a-secret-upstream-token", "workspaces", T0, SEMRUSH);
    const text = JSON.stringify(limiter.report());
    expect(text).not.toContain("a-secret-upstream-token");
    expect(limiter.report()[0]!.bearer).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe("peaks and clears", () => {
  it("tracks the peaks with no limit set (the measure of an unpaced client)", () => {
    const limiter = new RequestLimiter(T0);
    const off = { perSecond: 0, concurrent: 0 };
    const { releases } = burst(limiter, 30, T0, off);
    for (const release of releases) release();
    burst(limiter, 5, T0 + 2000, off);
    expect(limiter.report()[0]).toMatchObject({
      started: 35,
      throttled: 0,
      perSecondPeak: 30,
      inFlightPeak: 30,
      inFlight: 5,
    });
  });

  it("clearCounts zeroes counts and peaks but keeps enforcing the window and the requests in flight", () => {
    const limiter = new RequestLimiter(T0);
    const { releases } = burst(limiter, 10, T0, SEMRUSH);
    limiter.clearCounts(T0 + 10);
    expect(limiter.since).toBe(T0 + 10);
    expect(limiter.report()[0]).toMatchObject({ started: 0, throttled: 0, perSecondPeak: 0, inFlight: 10 });
    releases.forEach((release) => release());
    // Still ten starts in the window ending now.
    expect(limiter.tryStart("alice", "workspaces", T0 + 500, SEMRUSH)).toBeUndefined();
    expect(limiter.report()[0]).toMatchObject({ throttled: 1, inFlight: 0 });
  });

  it("reset forgets the windows; requests still in flight stay counted until answered", () => {
    const limiter = new RequestLimiter(T0);
    const limit = { perSecond: 10, concurrent: 4 };
    const { releases } = burst(limiter, 4, T0, limit);
    const bob = burst(limiter, 6, T0, { perSecond: 10, concurrent: 0 }, "bob");
    bob.releases.forEach((release) => release());
    limiter.reset(T0 + 1);
    expect(limiter.report()).toEqual([
      expect.objectContaining({ bearer: bearerHash("alice"), started: 0, inFlight: 4 }),
    ]);
    expect(limiter.tryStart("alice", "workspaces", T0 + 1, limit)).toBeUndefined();
    releases.forEach((release) => release());
    expect(burst(limiter, 10, T0 + 1, limit).releases).toHaveLength(4);
  });
});

describe("StartWindow", () => {
  it("holds a bounded number of starts however long the run", () => {
    const window = new StartWindow();
    for (let t = 0; t < 1_000_000; t += 10) {
      window.countAt(t);
      window.push(t);
    }
    expect(window.countAt(1_000_000)).toBe(99);
    expect(window.held).toBeLessThan(100 * 2 + 64 + 2);
  });
});

describe("property: whatever the arrivals, the upstream never sees more than the limit", () => {
  it("admitted starts in any 1 s window ≤ perSecond, in flight ≤ concurrent, and a call is throttled only when one of them is full", () => {
    const arrivals = fc.array(
      fc.record({ gap: fc.integer({ min: 0, max: 300 }), duration: fc.integer({ min: 0, max: 1500 }) }),
      { maxLength: 200 },
    );
    const limits = fc.record({
      perSecond: fc.integer({ min: 0, max: 12 }),
      concurrent: fc.integer({ min: 0, max: 12 }),
    });
    fc.assert(
      fc.property(arrivals, limits, (calls, limit) => {
        const limiter = new RequestLimiter(0);
        const admitted: number[] = [];
        let open: { until: number; release: () => void }[] = [];
        let now = 0;
        for (const call of calls) {
          now += call.gap;
          // Answers due by now are sent first.
          for (const held of open.filter((held) => held.until <= now)) held.release();
          open = open.filter((held) => held.until > now);
          const inWindow = admitted.filter((start) => now - start < 1000).length;
          const release = limiter.tryStart("alice", "projects", now, limit);
          const full =
            (limit.perSecond > 0 && inWindow >= limit.perSecond) ||
            (limit.concurrent > 0 && open.length >= limit.concurrent);
          expect(release === undefined).toBe(full);
          if (release) {
            admitted.push(now);
            open.push({ until: now + call.duration, release });
          }
        }
        const row = limiter.report()[0];
        if (limit.perSecond > 0) expect(row?.perSecondPeak ?? 0).toBeLessThanOrEqual(limit.perSecond);
        if (limit.concurrent > 0) expect(row?.inFlightPeak ?? 0).toBeLessThanOrEqual(limit.concurrent);
        expect(row?.started ?? 0).toBe(admitted.length);
        expect((row?.started ?? 0) + (row?.throttled ?? 0)).toBe(calls.length);
      }),
    );
  });
});
