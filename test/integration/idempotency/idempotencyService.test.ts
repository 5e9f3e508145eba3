import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { purgeExpiredIdempotencyKeys } from "../../../src/db/idempotencyKeys/purgeExpiredIdempotencyKeys.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { INTERACTIVE_EDGE_BUDGET_MS } from "../../../src/gateway/upstreamScope.ts";
import {
  IdempotencyService,
  type IdempotencyTicket,
  type IdempotentStart,
} from "../../../src/idempotency/idempotencyService.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * The key records on a real PostgreSQL: who takes a key, what a repeat gets, when a key is free
 * again. Time is aged by rewriting the rows' times (the rules compare them with PostgreSQL's clock);
 * a repeat's wait runs on a ManualClock the test moves (the service sleeps and measures on its clock).
 */
let db: TestDatabase;
let service: IdempotencyService;
let counter = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  service = new IdempotencyService({
    db: db.db,
    logger: createLogger({ level: "silent" }),
    clock: systemClock,
    pollMs: 10,
  });
});

const POLL_MS = 500;

/** A service whose repeats wait on a clock the test moves. */
function onManualClock(): { clock: ManualClock; waiting: IdempotencyService } {
  const clock = new ManualClock();
  const logger = createLogger({ level: "silent" });
  return { clock, waiting: new IdempotencyService({ db: db.db, logger, clock, pollMs: POLL_MS }) };
}

/** The ticket of a start that must have taken its key (a failed precondition fails the test). */
function ticketOf(started: IdempotentStart): IdempotencyTicket {
  expect(started.kind).toBe("run");
  if (started.kind !== "run") throw new Error("expected to run");
  return started.ticket;
}
afterAll(() => db.destroy());

function scope() {
  counter += 1;
  return { orgId: "org-1", principal: "user-1", route: "POST /v2/orgs/:orgId/brands", key: `key-${counter}` };
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
  return "no error";
}

async function rowCount(key: string): Promise<number> {
  const result = await db.db.execute<{ n: number }>(
    sql`select count(*)::int as n from idempotency_keys where key = ${key}`,
  );
  return result.rows[0]!.n;
}

describe("idempotency keys", () => {
  it("the first request runs; a repeat with the same fingerprint gets its answer", async () => {
    const key = scope();
    const first = await service.start(key, "fp-a", 0);
    expect(first.kind).toBe("run");
    if (first.kind !== "run") return;
    await service.finish(first.ticket, 201, { id: "brand-1" });
    expect(await service.start(key, "fp-a", 0)).toEqual({
      kind: "replay",
      status: 201,
      body: { id: "brand-1" },
    });
  });

  it("the same key with another fingerprint is idempotencyKeyReused, before and after the answer", async () => {
    const key = scope();
    const first = ticketOf(await service.start(key, "fp-a", 0));
    expect(await codeOf(service.start(key, "fp-b", 0))).toBe("idempotencyKeyReused");
    await service.finish(first, 201, { id: "x" });
    expect(await codeOf(service.start(key, "fp-b", 0))).toBe("idempotencyKeyReused");
  });

  it("keys are per caller, org and route", async () => {
    const key = scope();
    expect((await service.start(key, "fp-a", 0)).kind).toBe("run");
    expect((await service.start({ ...key, principal: "user-2" }, "fp-a", 0)).kind).toBe("run");
    expect((await service.start({ ...key, orgId: "org-2" }, "fp-a", 0)).kind).toBe("run");
    expect((await service.start({ ...key, route: "POST /v2/orgs" }, "fp-a", 0)).kind).toBe("run");
  });

  it("a repeat while the first runs waits for its answer", async () => {
    const { clock, waiting } = onManualClock();
    const key = scope();
    const first = ticketOf(await waiting.start(key, "fp-a", 0));
    let settled = false;
    const repeat = waiting.start(key, "fp-a", INTERACTIVE_EDGE_BUDGET_MS).finally(() => (settled = true));
    // The repeat looked, found the key in progress and waits on the clock (observed, not slept).
    await clock.untilSleeping();
    expect(settled).toBe(false);
    await waiting.finish(first, 202, { jobId: "job-1" });
    clock.advance(POLL_MS);
    // ... and gets the first answer at its next look.
    expect(await repeat).toEqual({ kind: "replay", status: 202, body: { jobId: "job-1" } });
  });

  it("a repeat waits out the interactive edge budget (15 s), then is idempotencyKeyInProgress", async () => {
    const { clock, waiting } = onManualClock();
    const key = scope();
    ticketOf(await waiting.start(key, "fp-a", 0));
    const startedAt = clock.now().getTime();
    let settled = false;
    const repeat = codeOf(waiting.start(key, "fp-a", INTERACTIVE_EDGE_BUDGET_MS)).finally(
      () => (settled = true),
    );
    for (;;) {
      await waitFor(() => settled || clock.pendingSleeps > 0, {
        timeoutMs: 30_000,
        what: "the repeat's next look",
      });
      if (settled) break;
      // Still waiting: only while the budget lasts.
      expect(clock.now().getTime() - startedAt).toBeLessThan(INTERACTIVE_EDGE_BUDGET_MS);
      clock.advance(POLL_MS);
    }
    expect(await repeat).toBe("idempotencyKeyInProgress");
    expect(clock.now().getTime() - startedAt).toBeGreaterThan(INTERACTIVE_EDGE_BUDGET_MS - POLL_MS);
  });

  it("a repeat that outlasts its wait is idempotencyKeyInProgress", async () => {
    const key = scope();
    await service.start(key, "fp-a", 0);
    expect(await codeOf(service.start(key, "fp-a", 0))).toBe("idempotencyKeyInProgress");
  });

  it("a 5xx or transient answer frees the key: the retry runs again", async () => {
    const key = scope();
    const first = await service.start(key, "fp-a", 0);
    if (first.kind !== "run") throw new Error("expected to run");
    await service.finish(first.ticket, 503, { error: "brandBusy" });
    expect(await rowCount(key.key)).toBe(0);
    const second = await service.start(key, "fp-a", 0);
    if (second.kind !== "run") throw new Error("expected to run again");
    await service.finish(second.ticket, 409, { error: "semrushProvisioningInProgress" });
    expect(await rowCount(key.key)).toBe(0);
    const third = await service.start(key, "fp-a", 0);
    if (third.kind !== "run") throw new Error("expected to run again");
    await service.finish(third.ticket, 409, { error: "brandExists" });
    expect(await service.start(key, "fp-a", 0)).toMatchObject({ kind: "replay", status: 409 });
  });

  it("a holder that died loses the key once its lease ran out (same fingerprint only)", async () => {
    const key = scope();
    const dead = ticketOf(await service.start(key, "fp-a", 0));
    await db.db.execute(
      sql`update idempotency_keys set locked_until = clock_timestamp() - interval '1 second' where key = ${key.key}`,
    );
    expect(await codeOf(service.start(key, "fp-b", 0))).toBe("idempotencyKeyReused");
    const taken = await service.start(key, "fp-a", 0);
    expect(taken.kind).toBe("run");
    // The dead holder's late answer is not stored over the new holder's run.
    await service.finish(dead, 201, { id: "late" });
    expect(await codeOf(service.start(key, "fp-a", 0))).toBe("idempotencyKeyInProgress");
  });

  it("after 24 h a key counts no more: any request takes it anew", async () => {
    const key = scope();
    const first = ticketOf(await service.start(key, "fp-a", 0));
    await service.finish(first, 201, { id: "old" });
    await db.db.execute(
      sql`update idempotency_keys set expires_at = clock_timestamp() - interval '1 second' where key = ${key.key}`,
    );
    expect((await service.start(key, "fp-b", 0)).kind).toBe("run");
  });

  it("the reconciler's purge deletes keys past their lifetime and keeps live ones", async () => {
    const live = scope();
    const old = scope();
    await service.start(live, "fp", 0);
    await service.start(old, "fp", 0);
    await db.db.execute(
      sql`update idempotency_keys set expires_at = clock_timestamp() - interval '1 second' where key = ${old.key}`,
    );
    expect(await purgeExpiredIdempotencyKeys(db.db)).toBeGreaterThanOrEqual(1);
    expect(await rowCount(old.key)).toBe(0);
    expect(await rowCount(live.key)).toBe(1);
  });
});
