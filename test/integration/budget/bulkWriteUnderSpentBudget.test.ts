import { randomBytes } from "node:crypto";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { PostgresUpstreamBudget } from "../../../src/budget/postgresUpstreamBudget.ts";
import type { BudgetPermit } from "../../../src/gateway/budgetPort.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { manualBudget } from "../../support/manualBudget.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";
import { track, waitFor } from "../../support/wait.ts";

/**
 * A bulk prompt write when the account's prompt-tracking budget stays spent past the request's
 * edge budget (ADR 0019), end to end: the real app, the real gateway client over HTTP to the
 * simulator, the budget on PostgreSQL with time injected. No item is lost: each one answers 503
 * upstreamBusy (retryable) in a 207 with Retry-After, nothing is written upstream, and the same
 * request sent again once the budget frees (same body, same Idempotency-Key) writes every item.
 */
const WINDOW_MS = 1_100;
/** The budget's longest pause between two looks at a full budget (its default). */
const POLL_MS = 60;
const originalFlag = process.env.SERENITY_DYNAMIC_ALLOCATION;

let sim: TestSimulator;
let db: TestDatabase;
let clock: ManualClock;
let t: TestApp;
let token: string;
let orgId: string;
let brandId: string;
const credentialKey = randomBytes(32);

function budget(): PostgresUpstreamBudget {
  return manualBudget({ db: db.db, clock, credentialKey, windowMs: WINDOW_MS, leaseMs: 600_000 });
}

async function call(
  method: "GET" | "POST",
  url: string,
  body?: object,
  headers: Record<string, string> = {},
) {
  const answer = track(
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...headers },
      ...(body ? { payload: body } : {}),
    }),
  );
  // Every upstream call waits on the budget, whose windows follow the manual clock. Time moves
  // only while the budget's head is between two looks (a short sleep, ≤ its 50 ms poll): then by
  // exactly that sleep, so every look happens, in order, however slow the machine. Long sleepers
  // (the waiters' 15 s deadlines, lease heartbeats) move only with it.
  while (!answer.settled) {
    await waitFor(() => answer.settled || clock.remainingSleeps().some((ms) => ms <= POLL_MS), {
      what: "the request's answer or the budget's next look",
    });
    const next = clock.remainingSleeps().find((ms) => ms <= POLL_MS);
    if (!answer.settled && next !== undefined) clock.advance(Math.max(1, next));
  }
  if (answer.error) throw answer.error;
  return answer.value!;
}

beforeAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  clock = new ManualClock(new Date());
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  db = await createTestDatabase();
  await db.db.execute(sql`truncate upstream_budget_slots, upstream_budget_adaptive, upstream_budget_waiters`);
  t = await createTestApp({ db, clock, gateway: { url: sim.url, budget: budget(), maxRetries: 0 } });
  const admin = await t.token({ sub: "admin", admin: true });
  const org = await t.app.inject({
    method: "POST",
    url: "/v2/orgs",
    headers: { authorization: `Bearer ${admin}` },
    payload: { name: "Spent budget", parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID },
  });
  orgId = org.json().id;
  token = await t.token({ sub: "user-1", orgs: [orgId] });
  const brand = await call("POST", `/v2/orgs/${orgId}/brands`, {
    name: "Quill",
    domain: "quill.example",
    semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
  });
  expect(brand.statusCode, brand.body).toBe(201);
  brandId = brand.json().id;
});
afterAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = originalFlag;
  await t?.close();
  await db?.destroy();
  await sim?.close();
});

const texts = Array.from({ length: 5 }, (_, i) => `Which quill pen suits a beginner ${i + 1}?`);
// Sent as a careful client would retry it: the same body under the same Idempotency-Key.
const write = () =>
  call(
    "POST",
    `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts`,
    { items: texts.map((text) => ({ text, geoTargetId: 2840, languageCode: "en" })) },
    { "idempotency-key": "quill-prompts-1" },
  );

async function upstreamTexts(): Promise<string[]> {
  const dump = await sim.dump();
  const brandWorkspace = dump.workspaces.find((w) => w.title === "Quill")!;
  return sim.simulator.store
    .projectsOf(brandWorkspace.id)
    .flatMap((project) => [...project.prompts.values()].map((prompt) => prompt.name));
}

describe("a bulk write meets a spent prompt-tracking budget", () => {
  it("reports every item 503 upstreamBusy with Retry-After, writes nothing, and the retry writes all", async () => {
    // The market's creation spent prompt-tracking slots of this window (it makes Serenity's tags):
    // a window later they are free, and another process takes them all.
    clock.advance(WINDOW_MS);
    // Another process holds every prompt-tracking slot of this account (and does not let go).
    const other = budget();
    const held: BudgetPermit[] = [];
    for (let i = 0; i < 10; i += 1) {
      held.push(
        await other.acquire(token, "promptTracking", { priority: "job", deadlineAt: Date.now() + 1e9 }),
      );
    }
    await sim.clearCalls();
    const refused = await write();
    expect(refused.statusCode).toBe(207);
    expect(refused.headers["retry-after"]).toBe("2");
    const items = refused.json().items as { index: number; status: number; error?: { code: string } }[];
    expect(items.map((item) => [item.index, item.status, item.error?.code])).toEqual(
      texts.map((_, index) => [index, 503, "upstreamBusy"]),
    );
    // Nothing reached the prompt-tracking endpoints, and nothing was written.
    expect((await sim.calls()).filter((c) => c.path.includes("/aio/"))).toEqual([]);
    for (const text of texts) expect(await upstreamTexts()).not.toContain(text);

    for (const permit of held) await permit.release();
    const retried = await write();
    // The refusal said when to come back, so it was not kept as the key's answer: the retry ran.
    expect(retried.headers["idempotent-replayed"]).toBeUndefined();
    expect(retried.statusCode).toBe(201);
    expect((retried.json().items as { status: number }[]).map((item) => item.status)).toEqual(
      texts.map(() => 201),
    );
    const written = await upstreamTexts();
    for (const text of texts) expect(written.filter((w) => w === text)).toHaveLength(1);
  });
});
