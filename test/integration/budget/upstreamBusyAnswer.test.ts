import { randomBytes } from "node:crypto";

import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import type { PostgresUpstreamBudget } from "../../../src/budget/postgresUpstreamBudget.ts";
import type { BudgetPermit } from "../../../src/gateway/budgetPort.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { manualBudget } from "../../support/manualBudget.ts";
import { drive, ManualClock } from "../../support/manualClock.ts";
import { PE, startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";
import { track, waitFor } from "../../support/wait.ts";

/**
 * A synchronous request and the shared upstream budget (ADR 0019), end to end: the real app, the
 * real gateway client over HTTP to the simulator, the budget on PostgreSQL with the time injected.
 * When the account's budget stays spent past the request's edge budget, the answer is 503
 * upstreamBusy with Retry-After — never a 502, and nothing was sent upstream.
 */
const LANGUAGES = "/v2/serenity/languages";

let sim: TestSimulator;
let db: TestDatabase;
let clock: ManualClock;
let credentialKey: Buffer;
let t: TestApp;
let bearer: string;

function budget(): PostgresUpstreamBudget {
  return manualBudget({ db: db.db, clock, credentialKey });
}

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "gold" });
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.destroy();
  await sim.close();
});
beforeEach(async () => {
  clock = new ManualClock();
  credentialKey = randomBytes(32);
  await db.db.execute(sql`truncate upstream_budget_slots, upstream_budget_adaptive, upstream_budget_waiters`);
  await sim.control("/faults", undefined, "DELETE");
  await sim.clearCalls();
  t = await createTestApp({ db, clock, gateway: { url: sim.url, budget: budget() } });
  bearer = await t.token({ sub: "user-1" });
});
afterEach(async () => {
  await t.close();
});

function languagesCall() {
  return t.app.inject({ method: "GET", url: LANGUAGES, headers: { authorization: `Bearer ${bearer}` } });
}

describe("a request meets a spent upstream budget", () => {
  it("answers 503 upstreamBusy with Retry-After at its edge budget, sending nothing upstream", async () => {
    // Another process holds every slot of this account's projects group (and never lets go).
    const other = budget();
    const held: BudgetPermit[] = [];
    for (let i = 0; i < 10; i += 1) {
      held.push(await other.acquire(bearer, "projects", { priority: "job", deadlineAt: Date.now() + 1e9 }));
    }
    const answer = track(languagesCall());
    // Deadline sleep + the head's poll.
    await drive(clock, 16_000, 250, { sleepers: 2, done: () => answer.settled });
    expect(answer.settled).toBe(true);
    const response = answer.value!;
    expect(response.statusCode).toBe(503);
    expect(response.headers["retry-after"]).toBe("2");
    expect(response.json()).toMatchObject({
      error: "upstreamBusy",
      message: "The upstream's request limit for this account is reached; retry shortly.",
    });
    expect(await sim.calls()).toEqual([]);
    expect(held).toHaveLength(10);
  });

  it("a 429 that still arrives is retried with a new slot, and lowers the account's adaptive limit", async () => {
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: `${PE}/v1/languages$` },
      action: { status: 429, body: { message: "Too many requests" } },
      times: 1,
    });
    const answer = track(languagesCall());
    // The retry's backoff (≤ 200 ms) is the one short sleep: the budget's deadline sleeps are ~15 s.
    await waitFor(() => (clock.remainingSleeps()[0] ?? Infinity) <= 1_000, { what: "the 429's backoff" });
    clock.advance(1_000);
    await waitFor(() => answer.settled, { what: "the retried request" });
    expect(answer.value?.statusCode).toBe(200);
    expect((await sim.calls()).map((call) => call.status)).toEqual([429, 200]);
    const rows = await db.db.execute(sql`select lowered from upstream_budget_adaptive`);
    expect(rows.rows).toEqual([{ lowered: 5 }]);
  });
});
