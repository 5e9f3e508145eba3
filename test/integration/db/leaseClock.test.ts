import { randomUUID } from "node:crypto";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createDatabaseLockProvider } from "../../../src/allocation/databaseAllocationLock.ts";
import { claimJobLease } from "../../../src/db/jobs/claimJobLease.ts";
import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { type Clock, systemClock } from "../../../src/domain/clock.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { JobReconciler } from "../../../src/jobs/reconciler.ts";
import { createBrandLease } from "../../../src/locks/brandLease.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, type JobWorld } from "../../support/jobWorld.ts";

/**
 * Every lease expires on PostgreSQL's clock (docs/decisions/0023): a process whose wall clock runs
 * minutes ahead or behind — a production clock, with no hand-driven database time — neither takes
 * over a live lease nor calls a live job stalled. Each case holds a lease from an unshifted process
 * and contends from a shifted one, which the old caller-clock comparison let through at once.
 */
const MINUTE = 60_000;

/** A production-like clock (no `databaseTime`) whose wall time is shifted by `offsetMs`. */
function shiftedClock(offsetMs: number): Clock {
  return {
    now: () => new Date(Date.now() + offsetMs),
    monotonicMs: () => performance.now(),
    sleep: systemClock.sleep,
  };
}

let db: TestDatabase;
let h: JobWorld;
const logger = createLogger({ level: "silent" });

const steady = defineJobHandler({
  type: "skew-steady",
  publicType: "skewSteadyJob",
  timeoutMs: 30_000,
  leaseTtlMs: 60_000,
  maxAttempts: 3,
  async handle() {
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

describe("leases on the database's clock", () => {
  for (const [holderShift, contenderShift] of [
    [-5 * MINUTE, 5 * MINUTE],
    [0, 5 * MINUTE],
    [5 * MINUTE, -5 * MINUTE],
  ] as const) {
    it(`a brand lease held at ${holderShift / MINUTE} min is not taken by a process at ${contenderShift / MINUTE} min`, async () => {
      const lease = (offsetMs: number) =>
        createBrandLease({ db: db.db, clock: shiftedClock(offsetMs), events: new EventBus(), logger });
      const brandId = randomUUID();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const holding = lease(holderShift).withBrand(brandId, async () => {
        entered();
        await gate;
      });
      await inside;
      const taken = await lease(contenderShift)
        .withBrand(brandId, async () => "taken", { waitMs: 0 })
        .catch((error: unknown) => error);
      release();
      await holding;
      expect(taken).toBeInstanceOf(ServiceError);
      expect((taken as ServiceError).code).toBe("brandBusy");
    });
  }

  it("an allocation lock held by one process is not taken by a process 5 min ahead", async () => {
    const provider = (offsetMs: number) =>
      createDatabaseLockProvider({
        db: db.db,
        clock: shiftedClock(offsetMs),
        events: new EventBus(),
        logger,
      });
    const subWorkspaceId = `ws-${randomUUID()}`;
    const held = await provider(-5 * MINUTE).acquire(subWorkspaceId, { timeoutMs: 0 });
    const taken = await provider(5 * MINUTE)
      .acquire(subWorkspaceId, { timeoutMs: 0 })
      .catch((error: unknown) => error);
    await held.release();
    expect(taken).toBeInstanceOf(ServiceError);
    expect((taken as ServiceError).code).toBe("workspaceBusy");
  });

  it("a live job lease is neither claimed again nor called stalled by a reconciler 5 min ahead", async () => {
    const id = randomUUID();
    await insertJob(db.db, {
      id,
      type: steady.type,
      orgId: randomUUID(),
      brandId: null,
      metadata: {},
      credentialId: null,
      createdBy: "user-1",
      now: undefined,
    });
    // Claimed as production claims: on the database's clock, a 60 s lease.
    expect(
      await claimJobLease(db.db, { jobId: id, leaseToken: randomUUID(), now: undefined, ttlMs: 60_000 }),
    ).toBeDefined();
    expect(
      await claimJobLease(db.db, { jobId: id, leaseToken: randomUUID(), now: undefined, ttlMs: 60_000 }),
    ).toBeUndefined();
    // No message is queued for it, so a reconciler that judged the lease expired (its clock says
    // the lease ended four minutes ago, past the two-minute grace) would redeliver it.
    await db.db.execute(sql`delete from pgboss.job`);
    const report = await new JobReconciler({
      db: db.db,
      clock: shiftedClock(5 * MINUTE),
      logger: h.logger,
      events: h.events,
      registry: h.registry,
      queue: h.queue,
      credentials: h.credentials,
      stallGraceMs: 2 * MINUTE,
      retentionMs: 7 * 24 * 60 * MINUTE,
    }).run();
    expect(report.skipped).toBe(false);
    expect(report.redelivered).toBe(0);
    expect(report.failed).toBe(0);
    const [row] = (
      await db.db.execute<{ status: string; leased: boolean }>(
        sql`select status, lease_token is not null as leased from jobs where id = ${id}`,
      )
    ).rows;
    expect(row).toEqual({ status: "IN_PROGRESS", leased: true });
  });
});
