import { randomUUID } from "node:crypto";

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import type { SiblingWorkspace } from "../../../src/allocation/allocationDeps.ts";
import { DEFAULT_LOCK_TIMEOUT_MS } from "../../../src/allocation/databaseAllocationLock.ts";
import { observeResources } from "../../../src/allocation/resourcesRecord.ts";
import { listLedgerEntries } from "../../../src/db/allocation/listLedgerEntries.ts";
import { recordPublish } from "../../../src/db/allocation/recordPublish.ts";
import type { Units } from "../../../src/domain/allocation.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import type { ServiceEvents } from "../../../src/observability/events.ts";
import {
  type AllocationWorld,
  drainPool,
  PARENT,
  poolSum,
  startAllocationWorld,
  TOKEN,
} from "../../support/allocationWorld.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * Near exhaustion (spec/allocation.md §11) over real HTTP against the simulator (gold pool 13 /
 * 800), the real database lock and ledger: the exact top-up, rebalancing from siblings under their
 * own locks (largest slack first, only what is needed, never below usage or the floor), the skips
 * (busy, publish lag, not ready), the per-request flag, and the round trips from the call log.
 */

let db: TestDatabase;
let h: AllocationWorld | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(() => db.destroy());

/** The lock runs on a manual clock with a long lease, so only its poll waits ever sleep briefly. */
async function harness(options: Parameters<typeof startAllocationWorld>[1] = {}) {
  h = await startAllocationWorld(db, options);
  return h;
}

/** A carved sub-workspace with `used` units already consumed (set on the simulator). */
async function subWorkspace(t: AllocationWorld, total: Partial<Units>, used: Partial<Units> = {}) {
  const ws = await t.newSubWorkspace(total);
  const usage = Object.fromEntries(
    Object.entries(used).map(([dimension, units]) => [dimension, { used: units }]),
  );
  if (Object.keys(usage).length > 0) await t.sim.control("/quota", { workspaceId: ws, ...usage });
  return ws;
}

/** What the resources record knows of `ids`: one read each, in this order (the last is the freshest). */
async function observe(t: AllocationWorld, ids: string[]): Promise<void> {
  for (const workspaceId of ids)
    await observeResources(t.deps, { orgId: t.orgId, bearer: TOKEN }, workspaceId);
}

function siblingsOf(t: AllocationWorld, ids: string[]): Map<string, SiblingWorkspace> {
  const siblings = new Map(ids.map((id) => [id, { brandId: randomUUID(), subWorkspaceId: id }]));
  t.deps.siblings = async (orgId) => (orgId === t.orgId ? [...siblings.values()] : []);
  return siblings;
}

function collect<K extends keyof ServiceEvents>(t: AllocationWorld, name: K): ServiceEvents[K][] {
  const seen: ServiceEvents[K][] = [];
  t.events.on(name, (event) => seen.push(event));
  return seen;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return (error as ServiceError).code;
}

async function ledgerOf(t: AllocationWorld) {
  const rows = await listLedgerEntries(db.db, t.orgId, { limit: 200 });
  return rows.reverse().map((row) => ({
    ws: row.subWorkspaceId,
    reason: row.reason,
    outcome: row.outcome,
    errorCode: row.errorCode,
    before: row.before?.prompts,
    after: row.after?.prompts,
    requestId: row.requestId,
    brandId: row.brandId,
  }));
}

const transfer = (ws: string) => `POST UM/v2/workspaces/${ws}/resources/transfer`;
const read = (ws: string) => `GET UM/v1/workspaces/${ws}/resources`;

describe("exact top-up (§11 step 1)", () => {
  it("the pool refuses the block but covers the need: the exact target is served, ledger `exact`", async () => {
    const t = await harness();
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 90 });
    await drainPool(t, { prompts: 30 });
    const before = await poolSum(t);
    await t.clearCalls();

    expect(await t.ensure(a, { prompts: 25 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 115 },
    });
    // Read, the refused block (200), the exact retry (115): one extra call over a normal top-up.
    expect(await t.calls()).toEqual([read(a), transfer(a), transfer(a)]);
    expect(await t.totals(a)).toEqual({ projects: 1, prompts: 115 });
    expect(await poolSum(t)).toEqual(before);
    const ledger = (await ledgerOf(t)).filter((row) => row.ws === a);
    expect(
      ledger.map(({ reason, outcome, errorCode, after }) => ({ reason, outcome, errorCode, after })),
    ).toEqual([
      { reason: "topUp", outcome: "failed", errorCode: "orgPoolExhausted", after: 200 },
      { reason: "exact", outcome: "applied", errorCode: null, after: 115 },
    ]);
  });

  it("with the comparison switch SERENITY_ALLOCATION_EXACT_TOPUP=false and rebalancing off, the block refusal stands", async () => {
    const t = await harness({
      env: { SERENITY_ALLOCATION_EXACT_TOPUP: "false", SERENITY_ALLOCATION_REBALANCE: "false" },
    });
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 90 });
    await drainPool(t, { prompts: 30 });
    await t.clearCalls();
    expect(await codeOf(t.ensure(a, { prompts: 25 }))).toBe("orgPoolExhausted");
    expect(await t.calls()).toEqual([read(a), transfer(a)]);
  });
});

describe("rebalancing (§11 step 2)", () => {
  it("reclaims from the sibling the record shows the largest slack, reading only it, then retries once; ledger rows on both sides", async () => {
    const t = await harness();
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 100 });
    const b = await subWorkspace(t, { projects: 1, prompts: 200 }, { prompts: 180 }); // slack 20
    const c = await subWorkspace(t, { projects: 1, prompts: 300 }, { prompts: 150 }); // slack 150
    await t.sim.control("/quota", { workspaceId: c, prompts: { drafted: 50 } }); // slack 100
    const d = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 100 }); // none
    const siblings = siblingsOf(t, [a, b, c, d]);
    await observe(t, [b, c, d]);
    await drainPool(t);
    const before = await poolSum(t);
    const near = collect(t, "allocation.nearExhaustion");
    const considered = collect(t, "allocation.rebalanceSibling");
    await t.clearCalls();

    expect(await t.ensure(a, { prompts: 50 }, { requestId: "req-rebalance" })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 150 },
    });

    const calls = await t.calls();
    // Read, block refused, exact refused; C (the record's largest slack) read and lowered; the retry.
    // B (less slack) and D (none) are never read: the rebalance costs 3 calls, not one per sibling.
    expect(calls).toEqual([read(a), transfer(a), transfer(a), read(c), transfer(c), transfer(a)]);

    expect(await t.totals(a)).toEqual({ projects: 1, prompts: 150 });
    expect(await t.totals(b)).toEqual({ projects: 1, prompts: 200 });
    expect(await t.totals(c)).toEqual({ projects: 1, prompts: 250 });
    expect(await t.totals(d)).toEqual({ projects: 1, prompts: 100 });
    expect(await poolSum(t)).toEqual(before);

    const ledger = await ledgerOf(t);
    expect(ledger.filter((row) => row.ws === c)).toEqual([
      {
        ws: c,
        reason: "rebalance",
        outcome: "applied",
        errorCode: null,
        before: 300,
        after: 250,
        requestId: "req-rebalance",
        brandId: siblings.get(c)!.brandId,
      },
    ]);
    expect(
      ledger
        .filter((row) => row.ws === a)
        .map(({ reason, outcome, after }) => `${reason} ${outcome} ${after}`),
    ).toEqual(["topUp failed 200", "exact failed 150", "rebalance applied 150"]);
    // Every reclaimed unit is accounted for: what C gave is what A took beyond the pool's free units.
    expect(near).toEqual([
      { orgId: t.orgId, step: "exact", outcome: "refused" },
      { orgId: t.orgId, step: "rebalance", outcome: "served" },
    ]);
    expect(considered.map((event) => event.outcome)).toEqual(["lowered"]);
    // The siblings' locks were all given back.
    for (const ws of [b, c, d]) {
      const lease = await t.deps.lock.tryAcquire(ws, 0);
      expect(lease).toBeDefined();
      await lease!.release();
    }
  });

  it("a sibling whose entry holds no read (only a publish, ADR 0046) is tried as one without an entry: read under its lock and lowered", async () => {
    const t = await harness();
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 100 });
    const b = await subWorkspace(t, { projects: 1, prompts: 300 }, { prompts: 100 }); // slack 200
    siblingsOf(t, [a, b]);
    // A publish into B outside any read, long enough ago that its window is over: B's entry is
    // "not read" (zeros), which must not rank as a sibling without slack.
    await recordPublish(db.db, {
      orgId: t.orgId,
      subWorkspaceId: b,
      now: new Date(Date.now() - 10 * 60_000),
      publishLagMs: 30_000,
    });
    await drainPool(t);
    const before = await poolSum(t);
    await t.clearCalls();

    expect(await t.ensure(a, { prompts: 50 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 150 },
    });
    expect(await t.calls()).toEqual([read(a), transfer(a), transfer(a), read(b), transfer(b), transfer(a)]);
    expect(await t.totals(b)).toEqual({ projects: 1, prompts: 250 });
    expect(await poolSum(t)).toEqual(before);
  });

  it("never lowers a sibling below used + drafted or the floor; when the slack falls short the pool still refuses", async () => {
    const t = await harness();
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 100 });
    const b = await subWorkspace(t, { projects: 1, prompts: 20 }); // idle: keeps the floor (1)
    const c = await subWorkspace(t, { projects: 2, prompts: 100 }, { projects: 1, prompts: 90 });
    siblingsOf(t, [a, b, c]);
    await drainPool(t);
    const before = await poolSum(t);

    expect(await codeOf(t.ensure(a, { prompts: 50 }))).toBe("orgPoolExhausted");
    // B gave 19 (down to the floor), C gave 10 (down to its usage); its projects were not short.
    expect(await t.totals(b)).toEqual({ projects: 1, prompts: 1 });
    expect(await t.totals(c)).toEqual({ projects: 2, prompts: 90 });
    expect(await t.totals(a)).toEqual({ projects: 1, prompts: 100 });
    // The reclaimed units are in the pool, accounted for in the ledger, and nothing was lost.
    const parent = await t.client.users.getResources(TOKEN, PARENT);
    expect(parent.prompts.total - parent.prompts.used).toBe(29);
    expect(await poolSum(t)).toEqual(before);
    const rebalanced = (await ledgerOf(t)).filter((row) => row.reason === "rebalance");
    expect(rebalanced.map(({ ws, outcome, before, after }) => ({ ws, outcome, before, after }))).toEqual(
      expect.arrayContaining([
        { ws: b, outcome: "applied", before: 20, after: 1 },
        { ws: c, outcome: "applied", before: 100, after: 90 },
        { ws: a, outcome: "failed", before: 100, after: 150 },
      ]),
    );
    expect(rebalanced).toHaveLength(3);
  });

  it("SERENITY_ALLOCATION_REBALANCE=false (read per request) stops after the exact retry; on again, the same request is served", async () => {
    const t = await harness({ env: { SERENITY_ALLOCATION_REBALANCE: "false" } });
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 100 });
    const c = await subWorkspace(t, { projects: 1, prompts: 300 }, { prompts: 100 });
    siblingsOf(t, [a, c]);
    await drainPool(t);
    await t.clearCalls();

    expect(await codeOf(t.ensure(a, { prompts: 50 }))).toBe("orgPoolExhausted");
    expect(await t.calls()).toEqual([read(a), transfer(a), transfer(a)]);
    expect(await t.totals(c)).toEqual({ projects: 1, prompts: 300 });

    t.env.SERENITY_ALLOCATION_REBALANCE = "true";
    expect(await t.ensure(a, { prompts: 50 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 150 },
    });
    expect(await t.totals(c)).toEqual({ projects: 1, prompts: 250 });
  });

  it("a sibling's lowering whose answer is lost but committed is settled by a read: ledger applied, the units count", async () => {
    const t = await harness();
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 100 });
    const c = await subWorkspace(t, { projects: 1, prompts: 300 }, { prompts: 150 }); // slack 150
    siblingsOf(t, [a, c]);
    await observe(t, [c]);
    await drainPool(t);
    const before = await poolSum(t);
    await t.sim.control("/faults", {
      match: { method: "POST", pathPattern: `/workspaces/${c}/resources/transfer$` },
      action: { afterCommit504: true },
      times: 3,
    });

    expect(await t.ensure(a, { prompts: 50 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 150 },
    });
    expect(t.sim.simulator.faults.size).toBe(0);
    expect(await t.totals(c)).toEqual({ projects: 1, prompts: 250 });
    expect(await poolSum(t)).toEqual(before);
    const rows = (await ledgerOf(t)).filter((row) => row.ws === c);
    expect(rows.map(({ reason, outcome, after }) => [reason, outcome, after])).toEqual([
      ["rebalance", "applied", 250],
    ]);
    // The lost answer is on the row, as a top-up's is.
    expect(rows[0]!.errorCode).not.toBeNull();
  });

  it("skips a busy sibling, one inside its publish-lag window and one whose transfer answers not ready; the next sibling covers", async () => {
    const clock = new ManualClock(new Date());
    const t = await harness({ lock: { clock, ttlMs: 600_000 } });
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 100 });
    const busy = await subWorkspace(t, { projects: 1, prompts: 150 }, { prompts: 30 }); // slack 120
    const lagging = await subWorkspace(t, { projects: 1, prompts: 150 }, { prompts: 30 }); // slack 120
    const notReady = await subWorkspace(t, { projects: 1, prompts: 150 }, { prompts: 40 }); // slack 110
    const spare = await subWorkspace(t, { projects: 1, prompts: 150 }, { prompts: 90 }); // slack 60
    siblingsOf(t, [a, busy, lagging, notReady, spare]);
    // All four show enough slack in the record; the freshest entries are tried first, the spare last.
    await observe(t, [spare, notReady, lagging, busy]);
    await drainPool(t);
    const before = await poolSum(t);
    await recordPublish(db.db, {
      orgId: t.orgId,
      subWorkspaceId: lagging,
      now: t.deps.clock.databaseTime?.(),
      publishLagMs: 30_000,
    });
    await t.sim.control("/faults", {
      match: { method: "POST", pathPattern: `/workspaces/${notReady}/resources/transfer$` },
      action: { status: 422, body: { message: "workspace not ready" } },
    });
    // Another request's section on `busy` is in progress (its write has not finished).
    let finishBusy!: () => void;
    let busyHeld!: () => void;
    const held = new Promise<void>((resolve) => (busyHeld = resolve));
    const busySection = t.deps.lock.withLock(busy, async () => {
      busyHeld();
      await new Promise<void>((resolve) => (finishBusy = resolve));
    });
    await held;
    const considered = collect(t, "allocation.rebalanceSibling");

    const served = t.ensure(a, { prompts: 50 });
    // The busy sibling may be waited for (briefly, on the lock's clock) if it sorts after A.
    await advanceUntilSettled(clock, [served], 2_000);
    expect(await served).toEqual({ toppedUp: true, newTotal: { projects: 1, prompts: 150 } });
    finishBusy();
    await busySection;

    expect(await t.totals(busy)).toEqual({ projects: 1, prompts: 150 });
    expect(await t.totals(lagging)).toEqual({ projects: 1, prompts: 150 });
    expect(await t.totals(notReady)).toEqual({ projects: 1, prompts: 150 });
    expect(await t.totals(spare)).toEqual({ projects: 1, prompts: 100 });
    expect(await poolSum(t)).toEqual(before);
    expect(considered.map((event) => event.outcome).sort()).toEqual([
      "busy",
      "failed",
      "lowered",
      "publishLag",
    ]);
    const ledger = await ledgerOf(t);
    expect(
      ledger.filter((row) => row.ws === notReady).map((row) => [row.reason, row.outcome, row.errorCode]),
    ).toEqual([["rebalance", "failed", "workspaceBusy"]]);
  });
});

describe("deadlock freedom", () => {
  it("two brands rebalancing from each other at once finish within the lock timeout: both served or one orgPoolExhausted", async () => {
    const clock = new ManualClock(new Date());
    const t = await harness({ lock: { clock, ttlMs: 600_000 } });
    const a = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 50 });
    const b = await subWorkspace(t, { projects: 1, prompts: 100 }, { prompts: 50 });
    siblingsOf(t, [a, b]);
    await drainPool(t);
    const before = await poolSum(t);

    // Hold each brand's exact retry (its second transfer, to 130) until both are there: from then
    // on each holds its own lock and, refused, turns to the other — rebalancing at the same time.
    const upstream = t.deps.upstream;
    const pending = new Map<string, () => void>();
    let bothThere!: () => void;
    const gate = new Promise<void>((resolve) => (bothThere = resolve));
    t.deps.upstream = {
      ...upstream,
      transfer: async (bearer, ws, targets) => {
        if (targets.prompts === 130 && (ws === a || ws === b) && !pending.has(ws)) {
          pending.set(ws, () => {});
          if (pending.size === 2) bothThere();
          await gate;
        }
        return upstream.transfer(bearer, ws, targets);
      },
    };

    const operations = [t.ensure(a, { prompts: 80 }), t.ensure(b, { prompts: 80 })];
    const outcomes = Promise.allSettled(operations);
    const clockTime = await advanceUntilSettled(clock, operations, DEFAULT_LOCK_TIMEOUT_MS);
    expect(clockTime).toBeLessThan(DEFAULT_LOCK_TIMEOUT_MS);
    const settled = await outcomes;

    const served = settled.filter((outcome) => outcome.status === "fulfilled");
    const refused = settled.flatMap((outcome) =>
      outcome.status === "rejected" ? [(outcome.reason as ServiceError).code] : [],
    );
    expect(served.length === 2 || (served.length === 1 && refused[0] === "orgPoolExhausted")).toBe(true);
    // Whoever was served got its exact target; nobody went below its usage; nothing was lost.
    for (const ws of [a, b]) {
      const totals = await t.totals(ws);
      expect(totals.prompts).toBeGreaterThanOrEqual(50);
    }
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(await poolSum(t)).toEqual(before);
    // Both locks are free again.
    for (const ws of [a, b]) {
      const lease = await t.deps.lock.tryAcquire(ws, 0);
      expect(lease).toBeDefined();
      await lease!.release();
    }
  });
});

/**
 * Lets `promise` run on real I/O and moves `clock` only when the code under test sleeps on it (a
 * lock poll), to the next deadline; fails if it needs more than `budgetMs` of clock time. Never
 * reads the wall clock except as a guard against a hang.
 */
/**
 * Moves the manual clock until every one of `operations` settled, one wake at a time, and only
 * while each unsettled operation is blocked on a short sleep of the clock (a lock poll; a held
 * lease's heartbeat sleeps a third of the long TTL and does not count). An operation busy with
 * real I/O — a read, a transfer, a lock release — is never overtaken by the clock, however slow
 * the machine: a wait times out only when its holder is itself waiting.
 */
async function advanceUntilSettled(clock: ManualClock, operations: Promise<unknown>[], budgetMs: number) {
  let unsettled = operations.length;
  for (const operation of operations) {
    void operation.then(
      () => (unsettled -= 1),
      () => (unsettled -= 1),
    );
  }
  const start = clock.now().getTime();
  const hangGuard = Date.now() + 60_000;
  while (unsettled > 0) {
    if (Date.now() > hangGuard) throw new Error("no progress: the code under test hangs");
    const shortSleeps = clock.remainingSleeps().filter((remaining) => remaining <= 1_000);
    if (shortSleeps.length >= unsettled) {
      clock.advance(shortSleeps[0]!);
      if (clock.now().getTime() - start > budgetMs)
        throw new Error(`needed more than ${budgetMs} ms of clock time`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return clock.now().getTime() - start;
}
