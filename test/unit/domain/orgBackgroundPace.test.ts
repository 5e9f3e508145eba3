import { describe, expect, it } from "vitest";

import {
  activityReason,
  idleReconcilePeriodMs,
  type OrgActivity,
  orgBackgroundPace,
  reconcileOrder,
} from "../../../src/domain/orgBackgroundPace.ts";

const HOUR = 3_600_000;
const MINUTE = 60_000;
const now = new Date("2026-12-05T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const quiet: OrgActivity = {
  lastRequestAt: null,
  lastJobAt: null,
  lastFailureAt: null,
  jobRunning: false,
  orphansPending: false,
};
const settings = {
  idle: { afterMs: HOUR, callsPerHour: 12 },
  reconcileEveryMs: 5 * MINUTE,
  lastReconcileCalls: 12,
};

describe("activityReason", () => {
  it("an org with nothing recorded, or everything older than the threshold, is idle", () => {
    expect(activityReason(quiet, now, HOUR)).toBe("idle");
    const old = { ...quiet, lastRequestAt: ago(HOUR), lastJobAt: ago(2 * HOUR), lastFailureAt: ago(HOUR) };
    expect(activityReason(old, now, HOUR)).toBe("idle");
  });

  it("a request, a job change, a running job, a failure within the threshold, or a pending orphan make it active", () => {
    expect(activityReason({ ...quiet, lastRequestAt: ago(HOUR - 1) }, now, HOUR)).toBe("request");
    expect(activityReason({ ...quiet, lastJobAt: ago(59 * MINUTE) }, now, HOUR)).toBe("job");
    expect(activityReason({ ...quiet, jobRunning: true }, now, HOUR)).toBe("job");
    expect(activityReason({ ...quiet, lastJobAt: ago(MINUTE), lastFailureAt: ago(MINUTE) }, now, HOUR)).toBe(
      "failure",
    );
    expect(activityReason({ ...quiet, orphansPending: true }, now, HOUR)).toBe("orphans");
  });
});

describe("idleReconcilePeriodMs", () => {
  it("is the time the last run's calls need to fit the hourly budget, never under the full period", () => {
    expect(idleReconcilePeriodMs(5 * MINUTE, 12, 12)).toBe(HOUR);
    expect(idleReconcilePeriodMs(5 * MINUTE, 3, 12)).toBe(15 * MINUTE);
    expect(idleReconcilePeriodMs(5 * MINUTE, 42, 12)).toBe(3.5 * HOUR);
    expect(idleReconcilePeriodMs(5 * MINUTE, 0, 12)).toBe(5 * MINUTE);
    expect(idleReconcilePeriodMs(30 * MINUTE, 1, 12)).toBe(30 * MINUTE);
  });

  it("keeps the full period until a first run measured the org, and when no budget is set", () => {
    expect(idleReconcilePeriodMs(5 * MINUTE, null, 12)).toBe(5 * MINUTE);
    expect(idleReconcilePeriodMs(5 * MINUTE, 40, 0)).toBe(5 * MINUTE);
  });

  it("never lets an idle org's runs exceed the budget per hour, whatever a run costs", () => {
    for (let calls = 0; calls <= 500; calls += 1) {
      const period = idleReconcilePeriodMs(5 * MINUTE, calls, 12);
      expect((calls * HOUR) / period).toBeLessThanOrEqual(12);
    }
  });
});

describe("orgBackgroundPace", () => {
  it("idle: no sampling, the reconciler at its budgeted period", () => {
    expect(orgBackgroundPace(quiet, now, settings)).toEqual({
      reason: "idle",
      sample: false,
      reconcileEveryMs: HOUR,
    });
  });

  it("active: both passes at full pace; a pending orphan brings back the reconciler only", () => {
    expect(orgBackgroundPace({ ...quiet, lastRequestAt: ago(MINUTE) }, now, settings)).toEqual({
      reason: "request",
      sample: true,
      reconcileEveryMs: 5 * MINUTE,
    });
    expect(orgBackgroundPace({ ...quiet, orphansPending: true }, now, settings)).toEqual({
      reason: "orphans",
      sample: false,
      reconcileEveryMs: 5 * MINUTE,
    });
  });
});

describe("orgBackgroundPace with no idle budget", () => {
  it("a budget of 0 turns the idle pace off: an idle org keeps both passes at full pace", () => {
    expect(orgBackgroundPace(quiet, now, { ...settings, idle: { afterMs: HOUR, callsPerHour: 0 } })).toEqual({
      reason: "idle",
      sample: true,
      reconcileEveryMs: 5 * MINUTE,
    });
  });
});

describe("reconcileOrder", () => {
  it("visits active orgs first, then idle ones longest unreconciled first", () => {
    const idle = { reason: "idle" as const, sample: false, reconcileEveryMs: HOUR };
    const full = { reason: "request" as const, sample: true, reconcileEveryMs: 5 * MINUTE };
    const orgs = [
      { id: "idle-recent", pace: idle, lastReconciledAt: ago(MINUTE) },
      { id: "active-a", pace: full, lastReconciledAt: ago(2 * HOUR) },
      { id: "idle-never", pace: idle, lastReconciledAt: null },
      { id: "idle-old", pace: idle, lastReconciledAt: ago(3 * HOUR) },
      { id: "active-b", pace: { ...full, reason: "failure" as const }, lastReconciledAt: null },
    ];
    expect(reconcileOrder(orgs).map((org) => org.id)).toEqual([
      "active-a",
      "active-b",
      "idle-never",
      "idle-old",
      "idle-recent",
    ]);
  });
});
