import { randomBytes } from "node:crypto";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { BUDGET_ACCOUNT_IDLE_MS } from "../../../src/budget/idleAccountsStep.ts";
import type { PostgresUpstreamBudget } from "../../../src/budget/postgresUpstreamBudget.ts";
import { purgeIdleBudgetAccounts } from "../../../src/db/upstreamBudget/purgeIdleBudgetAccounts.ts";
import type { EndpointGroup, UpstreamPriority, UpstreamScope } from "../../../src/domain/upstreamBudget.ts";
import { ADAPTIVE_INCREASE_EVERY_MS } from "../../../src/domain/upstreamBudget.ts";
import { BudgetExhausted, type BudgetPermit } from "../../../src/gateway/budgetPort.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { manualBudget } from "../../support/manualBudget.ts";
import { drive, ManualClock } from "../../support/manualClock.ts";
import { track, waitFor } from "../../support/wait.ts";

/**
 * The shared upstream budget on real PostgreSQL (ADR 0019), time injected: the slot statements
 * compare with the ManualClock's time instead of the database's, so the reuse window, the lease of
 * a dead holder and the deadlines move only when the test moves them. Several budget instances on
 * one database stand for several processes (each has its own local queue and waiter identity).
 */
const LEASE_MS = 20_000;
const WINDOW_MS = 1_100;
const BEARER = "user-token-for-budget";

let database: TestDatabase;
let clock: ManualClock;
let credentialKey: Buffer;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});
beforeEach(async () => {
  clock = new ManualClock();
  credentialKey = randomBytes(32);
  await database.db.execute(
    sql`truncate upstream_budget_slots, upstream_budget_adaptive, upstream_budget_waiters`,
  );
});

function budget(options: { slots?: number; backgroundShare?: number; events?: EventBus } = {}) {
  return manualBudget({
    db: database.db,
    clock,
    credentialKey,
    windowMs: WINDOW_MS,
    leaseMs: LEASE_MS,
    ...options,
  });
}

function scope(priority: UpstreamPriority, budgetMs = 60_000) {
  return { priority, deadlineAt: clock.now().getTime() + budgetMs };
}

async function takeMany(
  from: PostgresUpstreamBudget,
  count: number,
  priority: UpstreamPriority = "job",
  group: EndpointGroup = "projects",
): Promise<BudgetPermit[]> {
  const permits: BudgetPermit[] = [];
  for (let i = 0; i < count; i += 1) permits.push(await from.acquire(BEARER, group, scope(priority)));
  return permits;
}

async function heldSlots(): Promise<number> {
  const result = await database.db.execute(
    sql`select count(*)::int as n from upstream_budget_slots where holder is not null`,
  );
  return Number((result.rows[0] as { n: number }).n);
}

async function waitersOfRank(rank: number): Promise<number> {
  const result = await database.db.execute(
    sql`select count(*)::int as n from upstream_budget_waiters where priority = ${rank}`,
  );
  return Number((result.rows[0] as { n: number }).n);
}

/**
 * One slot, several waiters: hands the slot on `waiters.length` times (release, then drive the
 * clock until the next waiter is served) and answers the names in the order they were served.
 */
async function serveInTurn(
  shared: PostgresUpstreamBudget,
  waiters: readonly { name: string; scope: UpstreamScope }[],
): Promise<string[]> {
  const [first] = await takeMany(shared, 1);
  const served: string[] = [];
  const permits: BudgetPermit[] = [];
  for (const { name, scope: waiterScope } of waiters) {
    void shared.acquire(BEARER, "projects", waiterScope).then((permit) => {
      served.push(name);
      permits.push(permit);
    });
  }
  let permit = first!;
  for (let round = 1; round <= waiters.length; round += 1) {
    await permit.release();
    const waiting = waiters.length - round + 1;
    // Every waiter's deadline sleeps, plus the head's poll.
    await drive(clock, 3_000, 100, { sleepers: waiting + 1, done: () => served.length === round });
    expect(served).toHaveLength(round);
    permit = permits[round - 1]!;
  }
  return served;
}

describe("the slot budget", () => {
  it("never stores the bearer: the account is a keyed hash", async () => {
    await takeMany(budget(), 1);
    const rows = await database.db.execute(sql`select distinct account_key from upstream_budget_slots`);
    const keys = rows.rows.map((row) => (row as { account_key: string }).account_key);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(BEARER);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("starts at most `slots` calls per window: once all are released, the eleventh waits a window after the earliest end", async () => {
    const shared = budget();
    const permits = await takeMany(shared, 10);
    for (const permit of permits) await permit.release();
    const eleventh = track(shared.acquire(BEARER, "projects", scope("job")));
    // One sleeper for its deadline, one for the head's poll.
    await drive(clock, WINDOW_MS - 100, 50, { sleepers: 2 });
    expect(eleventh.settled).toBe(false);
    await drive(clock, 400, 50, { sleepers: 2, done: () => eleventh.settled });
    expect(eleventh.settled).toBe(true);
    expect(eleventh.error).toBeUndefined();
  });

  it("keeps at most `slots` calls in flight: a held slot is never reused, a released one a window after its end", async () => {
    const shared = budget();
    const permits = await takeMany(shared, 10);
    const eleventh = track(shared.acquire(BEARER, "projects", scope("job")));
    await drive(clock, 5_000, 250, { sleepers: 2 });
    expect(eleventh.settled).toBe(false);
    await permits[3]!.release();
    // A released slot rests one window after its call ended, then serves the waiter.
    await drive(clock, WINDOW_MS - 100, 50, { sleepers: 2 });
    expect(eleventh.settled).toBe(false);
    await drive(clock, 400, 50, { sleepers: 2, done: () => eleventh.settled });
    expect(eleventh.settled).toBe(true);
    expect(eleventh.error).toBeUndefined();
    expect(await heldSlots()).toBe(10);
  });

  it("counts each endpoint group apart", async () => {
    const shared = budget();
    await takeMany(shared, 10, "job", "projects");
    const prompts = await takeMany(shared, 10, "job", "promptTracking");
    expect(prompts).toHaveLength(10);
  });

  it("gives a dead holder's slots back when their lease expires, by the injected database time", async () => {
    const dead = budget();
    await takeMany(dead, 10); // a process that dies holding every slot: it never releases
    const survivor = budget();
    const waiting = track(survivor.acquire(BEARER, "projects", scope("job", 120_000)));
    await drive(clock, LEASE_MS - 500, 500, { sleepers: 2 });
    expect(waiting.settled).toBe(false);
    await drive(clock, 2_000, 100, { sleepers: 2, done: () => waiting.settled });
    expect(waiting.settled).toBe(true);
    expect(waiting.error).toBeUndefined();
  });

  it("rejects with BudgetExhausted at the caller's deadline", async () => {
    const shared = budget();
    await takeMany(shared, 10);
    const late = track(shared.acquire(BEARER, "projects", scope("interactive", 3_000)));
    await drive(clock, 3_500, 250, { sleepers: 2, done: () => late.settled });
    expect(late.error).toBeInstanceOf(BudgetExhausted);
  });
});

describe("one budget per upstream user (issue 39, item 7)", () => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const jwt = (sub: string, iat: number) =>
    `${part({ alg: "RS256" })}.${part({ iss: "https://id.example", sub, iat })}.c2ln`;

  it("two tokens of one user share one budget; another user's has its own", async () => {
    const shared = budget();
    for (let i = 0; i < 10; i += 1) await shared.acquire(jwt("user-1", 1), "projects", scope("job"));
    // The same user's refreshed token waits for the slots the first one holds…
    const refreshed = track(shared.acquire(jwt("user-1", 2), "projects", scope("job")));
    await drive(clock, 2_000, 250, { sleepers: 2 });
    expect(refreshed.settled).toBe(false);
    // …another user's token does not.
    const other = await shared.acquire(jwt("user-2", 1), "projects", scope("job"));
    expect(other).toBeDefined();
    const accounts = await database.db.execute(
      sql`select count(distinct account_key)::int as n from upstream_budget_slots`,
    );
    expect(Number((accounts.rows[0] as { n: number }).n)).toBe(2);
  });

  it("the budget rows of an account unseen for a day are purged; a live one's are kept; a purged one starts afresh", async () => {
    const shared = budget();
    const gone = await shared.acquire(jwt("idle-user", 1), "projects", scope("job"));
    await gone.release();
    await shared.acquire(jwt("busy-user", 1), "projects", scope("job")); // held past the day: dead, its lease long expired
    clock.advance(BUDGET_ACCOUNT_IDLE_MS + 1);
    const live = await shared.acquire(jwt("live-user", 1), "projects", scope("job"));
    const now = clock.now();
    const purged = await purgeIdleBudgetAccounts(database.db, {
      before: new Date(now.getTime() - BUDGET_ACCOUNT_IDLE_MS),
      now,
    });
    expect(purged.slots).toBe(20);
    const left = await database.db.execute(
      sql`select count(distinct account_key)::int as n from upstream_budget_slots`,
    );
    expect(Number((left.rows[0] as { n: number }).n)).toBe(1);
    await live.release();
    const again = await shared.acquire(jwt("idle-user", 2), "projects", scope("job"));
    expect(again).toBeDefined();
  });
});

describe("priorities across processes", () => {
  it("a job elsewhere does not take the slot a waiting interactive call would get", async () => {
    const holder = budget();
    const permits = await takeMany(holder, 10);
    const api = budget();
    const worker = budget();
    const interactive = track(api.acquire(BEARER, "projects", scope("interactive")));
    // The interactive head registers itself as a waiter on its second look.
    await drive(clock, 2_000, 10, { sleepers: 2 });
    await waitFor(async () => (await waitersOfRank(0)) === 1, {
      what: "the interactive waiter's registration",
    });
    const job = track(worker.acquire(BEARER, "projects", scope("job")));
    await clock.untilSleeping(4);
    await permits[0]!.release();
    await drive(clock, 2_000, 10, { sleepers: 3, done: () => interactive.settled });
    expect(interactive.settled).toBe(true);
    expect(job.settled).toBe(false);
    await permits[1]!.release();
    await drive(clock, 2_000, 10, { sleepers: 2, done: () => job.settled });
    expect(job.settled).toBe(true);
    expect(job.error).toBeUndefined();
  });

  it("background work holds at most its share, while a job still takes a free slot", async () => {
    const shared = budget({ backgroundShare: 3 });
    const background = await takeMany(shared, 3, "background");
    expect(background).toHaveLength(3);
    const fourth = track(shared.acquire(BEARER, "projects", scope("background")));
    await drive(clock, 2_000, 100, { sleepers: 2 });
    expect(fourth.settled).toBe(false);
    const job = await shared.acquire(BEARER, "projects", scope("job"));
    expect(job).toBeDefined();
    await background[0]!.release();
    await drive(clock, 1_000, 50, { sleepers: 2, done: () => fourth.settled });
    expect(fourth.settled).toBe(true);
  });

  it("in one process, the most urgent waiter is served first", async () => {
    const served = await serveInTurn(
      budget({ slots: 1 }),
      (["background", "job", "interactive"] as const).map((priority) => ({
        name: priority,
        scope: scope(priority),
      })),
    );
    expect(served).toEqual(["interactive", "job", "background"]);
  });
});

describe("within one priority", () => {
  it("serves the waiter whose deadline comes first, not the first to arrive (the oldest request of a burst)", async () => {
    // Arrival order: late deadline, then early deadline, then a middle one.
    const served = await serveInTurn(
      budget({ slots: 1 }),
      (
        [
          ["late", 14_000],
          ["early", 5_000],
          ["middle", 9_000],
        ] as const
      ).map(([name, budgetMs]) => ({ name, scope: scope("interactive", budgetMs) })),
    );
    expect(served).toEqual(["early", "middle", "late"]);
  });
});

describe("oldest work first", () => {
  it("within a priority, serves the work that began first, whatever the deadlines and arrival", async () => {
    const now = clock.now().getTime();
    // Job deliveries of three lineages: the newest arrives first and has the earliest deadline
    // (a later hop of one onboarding must not wait behind the first hops of every other one).
    const served = await serveInTurn(
      budget({ slots: 1 }),
      (
        [
          ["newest", 0, 5_000],
          ["oldest", 9_000, 14_000],
          ["middle", 4_000, 9_000],
        ] as const
      ).map(([name, beganMsAgo, budgetMs]) => ({
        name,
        scope: { ...scope("job", budgetMs), since: now - beganMsAgo },
      })),
    );
    expect(served).toEqual(["oldest", "middle", "newest"]);
  });
});

describe("the adaptive limit (AIMD), shared by every process", () => {
  it("halves on a 429 seen by one process, which every process then keeps to, and recovers while quiet", async () => {
    const events = new EventBus();
    const seen: number[] = [];
    events.on("upstream.adaptiveLimit", ({ slots }) => seen.push(slots));
    const first = budget({ events });
    const [permit] = await takeMany(first, 1);
    await permit!.reportThrottled();
    await permit!.reportThrottled(); // the same wall, within the window: no second halving
    await permit!.release();
    expect(seen).toEqual([10, 5]);
    clock.advance(WINDOW_MS);
    const second = budget();
    const four = await takeMany(second, 4);
    expect(four).toHaveLength(4);
    // The fifth usable slot (0, whose call ended a window ago) serves a fifth call at once.
    await takeMany(second, 1);
    const sixth = track(second.acquire(BEARER, "projects", scope("job")));
    await drive(clock, ADAPTIVE_INCREASE_EVERY_MS - WINDOW_MS - 100, 50, { sleepers: 2 });
    expect(sixth.settled).toBe(false);
    await drive(clock, 1_000, 50, { sleepers: 2, done: () => sixth.settled });
    expect(sixth.settled).toBe(true); // one slot back after a quiet step
  });
});
