import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { claimJobLease } from "../../../src/db/jobs/claimJobLease.ts";
import { completeJob } from "../../../src/db/jobs/completeJob.ts";
import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { isJobLeaseHeld } from "../../../src/db/jobs/isJobLeaseHeld.ts";
import { defineJobHandler, type JobContext } from "../../../src/jobs/handler.ts";
import { LeaseLostError } from "../../../src/jobs/jobError.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, deferred, type JobWorld } from "../../support/jobWorld.ts";
import { drive } from "../../support/manualClock.ts";
import { nextTurn } from "../../support/wait.ts";

/**
 * `ctx.assertLeaseHeld()`: one read that tells a handler whether its delivery still owns the job
 * (IN_PROGRESS, its own lease token, unexpired by the job clock). Driven by the ManualClock.
 */
let db: TestDatabase;
let h: JobWorld;

/** Each case parks its handler here; the test lets it go on and reads what the check said. */
interface Gate {
  promise: Promise<void>;
  resolve: () => void;
}
const cases = new Map<string, { started: Gate; proceed: Gate; saw?: unknown }>();

const checked = defineJobHandler({
  type: "lease-checked",
  publicType: "leaseCheckedJob",
  timeoutMs: 5_000,
  leaseTtlMs: 10_000,
  maxAttempts: 3,
  async handle(ctx: JobContext) {
    const entry = cases.get(String(ctx.metadata.case))!;
    entry.started.resolve();
    // Ignores its abort signal on purpose: the late copy the lease check exists for.
    await entry.proceed.promise;
    try {
      await ctx.assertLeaseHeld();
      entry.saw = "held";
    } catch (error) {
      entry.saw = error;
      throw error;
    }
    return { checked: true };
  },
});

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, [checked]);
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});

async function start(name: string) {
  const entry: { started: Gate; proceed: Gate; saw?: unknown } = {
    started: deferred<void>(),
    proceed: deferred<void>(),
  };
  cases.set(name, entry);
  const id = randomUUID();
  await insertJob(db.db, {
    id,
    type: "lease-checked",
    orgId: randomUUID(),
    brandId: randomUUID(),
    metadata: { case: name },
    credentialId: null,
    createdBy: "user-1",
    now: h.clock.now(),
  });
  await h.queue.enqueue(id);
  const round = h.worker().pollOnce();
  await entry.started.promise;
  return { id, entry, round };
}

describe("ctx.assertLeaseHeld", () => {
  it("passes while the delivery holds an unexpired lease, renewed by its heartbeat", async () => {
    const { id, entry, round } = await start("held");
    // Past the first renewal interval (a third of the 10 s TTL): the heartbeat's renewals, each
    // landing before the next step (two sleepers: the handler's timeout and the heartbeat), keep it.
    await drive(h.clock, 4_000, 1_000, { sleepers: 2 });
    entry.proceed.resolve();
    await round;
    expect(entry.saw).toBe("held");
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", result: { checked: true } });
  });

  it("throws LeaseLostError after another delivery took the lease over", async () => {
    const { id, entry, round } = await start("taken-over");
    // Another worker, whose clock is past this lease's expiry, claims the job.
    const thief = randomUUID();
    const later = new Date(h.clock.now().getTime() + 10_001);
    expect(
      await claimJobLease(db.db, { jobId: id, leaseToken: thief, now: later, ttlMs: 10_000 }),
    ).toBeDefined();
    entry.proceed.resolve();
    await round;
    expect(entry.saw).toBeInstanceOf(LeaseLostError);
    expect(await h.job(id)).toMatchObject({ status: "IN_PROGRESS", leaseToken: thief });
    expect(h.finished.at(-1)).toMatchObject({ type: "lease-checked", outcome: "lease_lost" });
  });

  it("reads expiry by the clock it is given, the token and the status (the module alone)", async () => {
    const id = randomUUID();
    await insertJob(db.db, {
      id,
      type: "lease-checked",
      orgId: randomUUID(),
      brandId: randomUUID(),
      metadata: {},
      credentialId: null,
      createdBy: "user-1",
      now: h.clock.now(),
    });
    const token = randomUUID();
    const now = h.clock.now();
    await claimJobLease(db.db, { jobId: id, leaseToken: token, now, ttlMs: 10_000 });
    const at = (ms: number) => new Date(now.getTime() + ms);
    expect(await isJobLeaseHeld(db.db, { jobId: id, leaseToken: token, now: at(9_999) })).toBe(true);
    expect(await isJobLeaseHeld(db.db, { jobId: id, leaseToken: token, now: at(10_000) })).toBe(false);
    expect(await isJobLeaseHeld(db.db, { jobId: id, leaseToken: randomUUID(), now })).toBe(false);
    await completeJob(db.db, { jobId: id, leaseToken: token, result: {}, now });
    expect(await isJobLeaseHeld(db.db, { jobId: id, leaseToken: token, now })).toBe(false);
  });

  it("throws in a late copy whose lease the runner released after the timeout's grace", async () => {
    const { id, entry, round } = await start("released");
    h.clock.advance(5_000); // the handler timeout: its signal fires, it carries on regardless
    await nextTurn(20); // the runner reacts to the abort asynchronously
    h.clock.advance(5_000); // the grace (5 s here) ends: the runner stops waiting, releases the lease
    await round;
    expect(await h.job(id)).toMatchObject({ status: "IN_PROGRESS", leaseToken: null });
    expect(await h.pendingMessages(id)).toHaveLength(1);
    entry.proceed.resolve();
    await expect.poll(() => entry.saw).toBeInstanceOf(LeaseLostError);
  });
});
