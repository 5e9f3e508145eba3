import { randomUUID } from "node:crypto";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { findCredential } from "../../../src/db/credentials/findCredential.ts";
import { claimJobLease } from "../../../src/db/jobs/claimJobLease.ts";
import { completeJob } from "../../../src/db/jobs/completeJob.ts";
import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { jobs } from "../../../src/db/schema.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { JobReconciler } from "../../../src/jobs/reconciler.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, type JobWorld } from "../../support/jobWorld.ts";

let db: TestDatabase;
let h: JobWorld;
const ORG = randomUUID();
let runs = 0;

const steady = defineJobHandler({
  type: "steady",
  publicType: "steadyJob",
  timeoutMs: 1_000,
  leaseTtlMs: 5_000,
  maxAttempts: 2,
  async handle() {
    runs += 1;
    return { ok: true };
  },
});

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, [steady]);
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});

function reconciler() {
  return new JobReconciler({
    db: db.db,
    clock: h.clock,
    logger: h.logger,
    events: h.events,
    registry: h.registry,
    queue: h.queue,
    credentials: h.credentials,
    stallGraceMs: 60_000,
    retentionMs: 7 * 24 * 60 * 60 * 1000,
  });
}

async function insert(options: { token?: string } = {}): Promise<string> {
  const id = randomUUID();
  const credentialId = options.token ? await h.credentials.seal("user-1", options.token) : null;
  await insertJob(db.db, {
    id,
    type: "steady",
    orgId: ORG,
    brandId: null,
    metadata: {},
    credentialId,
    createdBy: "user-1",
    now: h.clock.now(),
  });
  return id;
}

/** A worker that claimed the job and died: lease held, its message gone. */
async function crashAfterClaim(id: string): Promise<void> {
  await claimJobLease(db.db, { jobId: id, leaseToken: randomUUID(), now: h.clock.now(), ttlMs: 5_000 });
}

/** Each test starts from an empty queue and no leftover IN_PROGRESS records. */
async function clearQueue() {
  await db.db.execute(sql`delete from pgboss.job`);
  await db.db.execute(sql`update jobs set status = 'COMPLETED' where status = 'IN_PROGRESS'`);
}

describe("the reconciler", () => {
  it("re-delivers a stalled job with attempts left, only once the lease expired long ago", async () => {
    await clearQueue();
    const id = await insert();
    await crashAfterClaim(id);
    h.clock.advance(5_000 + 30_000); // lease expired 30 s ago: not yet "long ago"
    expect((await reconciler().run()).redelivered).toBe(0);
    h.clock.advance(31_000);
    const report = await reconciler().run();
    expect(report).toMatchObject({ skipped: false, redelivered: 1, failed: 0, stuck: { steady: 1 } });
    expect(await h.pendingMessages(id)).toHaveLength(1);
    // The pending delivery now covers it: a second run does nothing.
    expect((await reconciler().run()).redelivered).toBe(0);
    const before = runs;
    await h.worker().drain();
    expect(runs).toBe(before + 1);
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", attempts: 2 });
  });

  it("re-delivers a record whose enqueue never happened", async () => {
    await clearQueue();
    const id = await insert();
    h.clock.advance(61_000);
    expect((await reconciler().run()).redelivered).toBe(1);
    await h.worker().drain();
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", attempts: 1 });
  });

  it("fails a stalled job JOB_STALLED once its attempts are spent, and invalidates its credential", async () => {
    await clearQueue();
    const id = await insert({ token: "opaque-stalled-token" });
    await crashAfterClaim(id);
    h.clock.advance(6_000);
    await crashAfterClaim(id); // the second (and last allowed) delivery died too
    h.clock.advance(5_000 + 61_000);
    const report = await reconciler().run();
    expect(report).toMatchObject({ redelivered: 0, failed: 1 });
    const row = await h.job(id);
    expect(row).toMatchObject({ status: "FAILED", leaseToken: null });
    expect(row.error).toEqual({
      code: "JOB_STALLED",
      message: "The job stopped making progress and was abandoned.",
      retryable: false,
    });
    expect((await findCredential(db.db, row.credentialId!))?.sealed).toBeNull();
  });

  it("never touches a job under a live lease, or one with a pending (even delayed) delivery", async () => {
    await clearQueue();
    const leased = await insert();
    const delayed = await insert();
    h.clock.advance(61_000);
    await crashAfterClaim(leased);
    await h.queue.enqueue(delayed, { delayMs: 60 * 60 * 1000 });
    const report = await reconciler().run();
    expect(report.redelivered).toBe(0);
    expect(report.failed).toBe(0);
    expect(await h.pendingMessages(leased)).toHaveLength(0);
  });

  it("two reconcilers at once: one delivery per stalled job", async () => {
    await clearQueue();
    const ids = await Promise.all([insert(), insert(), insert()]);
    h.clock.advance(61_000);
    const reports = await Promise.all([reconciler().run(), reconciler().run(), reconciler().run()]);
    expect(reports.reduce((sum, report) => sum + report.redelivered, 0)).toBe(3);
    for (const id of ids) expect(await h.pendingMessages(id)).toHaveLength(1);
  });

  it("purges terminal records after the retention, keeps younger ones and IN_PROGRESS ones", async () => {
    await clearQueue();
    const old = await insert();
    const token = randomUUID();
    await claimJobLease(db.db, { jobId: old, leaseToken: token, now: h.clock.now(), ttlMs: 5_000 });
    await completeJob(db.db, { jobId: old, leaseToken: token, result: {}, now: h.clock.now() });
    h.clock.advance(2 * 24 * 60 * 60 * 1000);
    const young = await insert();
    const youngToken = randomUUID();
    await claimJobLease(db.db, { jobId: young, leaseToken: youngToken, now: h.clock.now(), ttlMs: 5_000 });
    await completeJob(db.db, { jobId: young, leaseToken: youngToken, result: {}, now: h.clock.now() });
    h.clock.advance(5 * 24 * 60 * 60 * 1000 + 1);
    const report = await reconciler().run();
    expect(report.purged).toBeGreaterThanOrEqual(1);
    const remaining = (await db.db.select({ id: jobs.id }).from(jobs)).map((row) => row.id);
    expect(remaining).not.toContain(old);
    expect(remaining).toContain(young);
  });

  it("runs extra steps in its transaction; a failing step is rolled back alone", async () => {
    await clearQueue();
    const seen: Date[] = [];
    const r = reconciler()
      .addStep("broken", async ({ db: tx }) => {
        await tx.execute(sql`update jobs set metadata = '{"broken": true}'`);
        throw new Error("step failed");
      })
      .addStep("counting", async ({ now }) => {
        seen.push(now);
        return { staleAttempts: 2 };
      });
    const report = await r.run();
    expect(report.steps).toEqual({ broken: "failed", counting: { staleAttempts: 2 } });
    expect(seen).toEqual([h.clock.now()]);
    const broken = await db.db.execute(
      sql`select count(*)::int as n from jobs where metadata->>'broken' = 'true'`,
    );
    expect(broken.rows[0]).toEqual({ n: 0 });
  });
});
