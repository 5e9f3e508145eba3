import { describe, expect, it } from "vitest";

import { type JobLease, renewalIntervalMs, renewedLease } from "../../../src/jobs/jobLease.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * The holder's side of a job lease (docs/decisions/0023): renewed twice per renewal interval (a
 * third of the TTL); each successful renewal lets the holder write for one interval from the
 * moment it was sent; a failed renewal stops it at once, a renewal that finds the lease gone stops
 * it for good. Time is a manual clock; each renewal is answered by the test.
 */
const TTL_MS = 9_000;
const INTERVAL_MS = renewalIntervalMs(TTL_MS); // 3 s

interface Renewal {
  sentAt: number;
  answer(outcome: boolean | Error): void;
}

function leaseOnScript(clock: ManualClock): { lease: JobLease; renewals: Renewal[] } {
  const renewals: Renewal[] = [];
  const lease = renewedLease(
    {
      clock,
      logger: createLogger({ level: "silent" }),
      renew: () =>
        new Promise<boolean>((resolve, reject) => {
          renewals.push({
            sentAt: clock.now().getTime(),
            answer: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)),
          });
        }),
    },
    { jobId: "job-1", ttlMs: TTL_MS, claimedAt: clock.now().getTime() },
  );
  return { lease, renewals };
}

/** Lets the heartbeat take an answered renewal in and go back to its sleep. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Moves the clock, then lets the heartbeat wake and send its renewal. */
async function advance(clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await settle();
}

describe("a job lease's heartbeat", () => {
  it("renews every half interval; a holder whose renewals succeed stays held past the TTL", async () => {
    const clock = new ManualClock();
    const start = clock.now().getTime();
    const { lease, renewals } = leaseOnScript(clock);
    for (let i = 1; i <= 8; i++) {
      await clock.untilSleeping();
      await advance(clock, INTERVAL_MS / 2);
      expect(renewals).toHaveLength(i);
      renewals[i - 1]!.answer(true);
      await settle();
      expect(lease.held()).toBe(true);
    }
    // 8 × 1.5 s = 12 s: longer than the 9 s TTL, held throughout.
    expect(clock.now().getTime() - start).toBeGreaterThan(TTL_MS);
    expect(renewals.map((renewal) => renewal.sentAt - start)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => n * (INTERVAL_MS / 2)),
    );
    lease.stop();
    expect(lease.held()).toBe(false);
  });

  it("a failed renewal stops the holder's writes at once, and a later successful one lets it write again", async () => {
    const clock = new ManualClock();
    const { lease, renewals } = leaseOnScript(clock);
    await clock.untilSleeping();
    await advance(clock, INTERVAL_MS / 2);
    expect(lease.held()).toBe(true);
    renewals[0]!.answer(new Error("connection reset"));
    await settle();
    expect(lease.held()).toBe(false);
    // Retried sooner than the usual cadence; it succeeds: the row still names this holder, live.
    await clock.untilSleeping();
    await advance(clock, INTERVAL_MS / 4);
    expect(renewals).toHaveLength(2);
    renewals[1]!.answer(true);
    await settle();
    expect(lease.held()).toBe(true);
    lease.stop();
  });

  it("a renewal that never answers: the holder stops writing one interval after the last successful renewal was sent", async () => {
    const clock = new ManualClock();
    const { lease, renewals } = leaseOnScript(clock);
    await clock.untilSleeping();
    await advance(clock, INTERVAL_MS / 2);
    const lastRenewalSentAt = clock.now().getTime();
    renewals[0]!.answer(true);
    await clock.untilSleeping();
    await advance(clock, INTERVAL_MS / 2); // the next renewal is sent and hangs (a blackholed connection)
    expect(renewals).toHaveLength(2);
    await advance(clock, INTERVAL_MS / 2 - 1);
    expect(clock.now().getTime()).toBe(lastRenewalSentAt + INTERVAL_MS - 1);
    expect(lease.held()).toBe(true);
    await advance(clock, 1);
    expect(lease.held()).toBe(false);
    lease.stop();
  });

  it("a renewal that finds the lease gone (lapsed, taken over) stops the holder for good", async () => {
    const clock = new ManualClock();
    const { lease, renewals } = leaseOnScript(clock);
    await clock.untilSleeping();
    await advance(clock, INTERVAL_MS / 2);
    renewals[0]!.answer(false);
    await settle();
    expect(lease.held()).toBe(false);
    await advance(clock, TTL_MS);
    await settle();
    expect(renewals).toHaveLength(1);
    expect(lease.held()).toBe(false);
  });
});
