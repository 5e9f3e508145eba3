import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { purgeExpiredIdempotencyKeys } from "../../../src/db/idempotencyKeys/purgeExpiredIdempotencyKeys.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { IdempotencyService } from "../../../src/idempotency/idempotencyService.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

/**
 * The key records on a real PostgreSQL: who takes a key, what a repeat gets, when a key is free
 * again. Time is aged by rewriting the rows' times (the rules compare them with PostgreSQL's clock).
 */
let db: TestDatabase;
let service: IdempotencyService;
let counter = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  service = new IdempotencyService({ db: db.db, logger: createLogger({ level: "silent" }), pollMs: 10 });
});
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
    const first = await service.start(key, "fp-a", 0);
    expect(await codeOf(service.start(key, "fp-b", 0))).toBe("idempotencyKeyReused");
    if (first.kind === "run") await service.finish(first.ticket, 201, { id: "x" });
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
    const key = scope();
    const first = await service.start(key, "fp-a", 0);
    if (first.kind !== "run") throw new Error("expected to run");
    let settled = false;
    const repeat = service.start(key, "fp-a", 60_000).finally(() => (settled = true));
    // The repeat is waiting on the row (observed: still in progress, repeat unsettled) ...
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    await service.finish(first.ticket, 202, { jobId: "job-1" });
    // ... and gets the first answer once it is stored.
    expect(await repeat).toEqual({ kind: "replay", status: 202, body: { jobId: "job-1" } });
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
    const dead = await service.start(key, "fp-a", 0);
    await db.db.execute(
      sql`update idempotency_keys set locked_until = clock_timestamp() - interval '1 second' where key = ${key.key}`,
    );
    expect(await codeOf(service.start(key, "fp-b", 0))).toBe("idempotencyKeyReused");
    const taken = await service.start(key, "fp-a", 0);
    expect(taken.kind).toBe("run");
    // The dead holder's late answer is not stored over the new holder's run.
    if (dead.kind === "run") await service.finish(dead.ticket, 201, { id: "late" });
    expect(await codeOf(service.start(key, "fp-a", 0))).toBe("idempotencyKeyInProgress");
  });

  it("after 24 h a key counts no more: any request takes it anew", async () => {
    const key = scope();
    const first = await service.start(key, "fp-a", 0);
    if (first.kind === "run") await service.finish(first.ticket, 201, { id: "old" });
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
