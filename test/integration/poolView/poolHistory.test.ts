import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * The pool over time: every fresh read of the pool (a first view, a pool view's background
 * refresh of a stale entry, the sampler's `PoolViewService.sample` when it reads the parent) offers a sample; `GET …/serenity/pool-history` and `GET /v2/serenity/pool-summaries`
 * read them back, with tenancy. Time moves by hand (the pool view cache and the spacing use it).
 */

let sim: TestSimulator;
let t: TestApp;
let clock: ManualClock;
let admin: string;
let orgId: string;
let otherOrgId: string;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  clock = new ManualClock(new Date("2026-03-01T12:00:00.000Z"));
  t = await createTestApp({ gateway: { url: sim.url }, clock, poolRefreshPacing: { spacingMs: 0 } });
  admin = await t.token({ sub: "admin-1", admin: true });
  const org = async (name: string, parentWorkspaceId: string | null) =>
    (
      await t.app.inject({
        method: "POST",
        url: "/v2/orgs",
        headers: auth(admin),
        payload: { name, parentWorkspaceId },
      })
    ).json().id as string;
  orgId = await org("Pool org", GOLD_PARENT_WORKSPACE_ID);
  otherOrgId = await org("Other org", null);
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

const readPool = () =>
  t.app.inject({ method: "GET", url: `/v2/orgs/${orgId}/serenity/resources`, headers: auth(admin) });
const history = (query = "", token = admin, org = orgId) =>
  t.app.inject({ method: "GET", url: `/v2/orgs/${org}/serenity/pool-history${query}`, headers: auth(token) });

describe("pool history", () => {
  it("records fresh reads when the pool moved or a minute passed, and reads them back oldest first", async () => {
    const first = await readPool();
    expect(first.statusCode).toBe(200);
    const { asOf: _asOf, ...firstPool } = first.json().pool;

    // Within the max age the view answers from the resources record: no read, no sample.
    clock.advance(1_000);
    await readPool();
    clock.advance(6_000);
    await readPool();
    let body = (await history()).json();
    expect(body.items).toEqual([{ sampledAt: "2026-03-01T12:00:00.000Z", ...firstPool }]);

    // The pool moves upstream; past the max age a view serves the old entry and refreshes it in
    // the background, whose fresh read of a moved pool is recorded at once.
    await sim.control("/quota", {
      workspaceId: GOLD_PARENT_WORKSPACE_ID,
      prompts: { used: 120, drafted: 30, total: firstPool.prompts.total },
    });
    clock.advance(24_000);
    const served = (await readPool()).json().pool;
    expect(served.asOf).toBe("2026-03-01T12:00:00.000Z");
    expect(served.prompts).toMatchObject({ used: 0, drafted: 0 });
    await t.services.poolView.settled();
    const moved = (await readPool()).json().pool;
    expect(moved.prompts).toMatchObject({ used: 120, drafted: 30 });
    expect(moved.asOf).toBe("2026-03-01T12:00:31.000Z");
    // Unchanged again, but a minute after the last sample: recorded (a flat line keeps its points).
    clock.advance(61_000);
    await readPool();
    await t.services.poolView.settled();

    body = (await history()).json();
    expect(body.items.map((item: { sampledAt: string }) => item.sampledAt)).toEqual([
      "2026-03-01T12:00:00.000Z",
      "2026-03-01T12:00:31.000Z",
      "2026-03-01T12:01:32.000Z",
    ]);
    const { asOf: _movedAsOf, ...movedPool } = moved;
    expect(body.items[1].prompts).toEqual(movedPool.prompts);
    expect(body.retentionMs).toBe(7 * 24 * 60 * 60 * 1000);

    // `limit` keeps the newest, still oldest first; `since` narrows the window.
    const newest = (await history("?limit=2")).json().items;
    expect(newest.map((item: { sampledAt: string }) => item.sampledAt)).toEqual([
      "2026-03-01T12:00:31.000Z",
      "2026-03-01T12:01:32.000Z",
    ]);
    const since = (await history("?since=2026-03-01T12:01:00Z")).json();
    expect(since.items).toHaveLength(1);
    expect(since.since).toBe("2026-03-01T12:01:00.000Z");
  });

  it("records what the periodic sampler reads (the same PoolViewService.sample path)", async () => {
    const org = await t.services.orgs.getAccessible(
      { sub: "sampler", orgIds: [], isAdmin: true, bearer: admin },
      orgId,
    );
    clock.advance(120_000);
    await t.services.poolView.sample(org, admin);
    const items = (await history()).json().items as { sampledAt: string }[];
    expect(items.at(-1)!.sampledAt).toBe(clock.now().toISOString());
  });

  it("a sampler pass that reads nothing upstream records nothing: the record's pool is not re-dated", async () => {
    const org = await t.services.orgs.getAccessible(
      { sub: "sampler", orgIds: [], isAdmin: true, bearer: admin },
      orgId,
    );
    const previous = process.env.SERENITY_POOL_VIEW_MAX_AGE_MS;
    process.env.SERENITY_POOL_VIEW_MAX_AGE_MS = String(10 * 60 * 1000);
    try {
      const before = (await history()).json().items as unknown[];
      const reads = (await sim.calls()).length;
      // Two minutes on: every entry is still fresh (10 min max age), so the pass reads nothing —
      // and a sample dated now would claim a reading nobody made.
      clock.advance(120_000);
      await t.services.poolView.sample(org, admin);
      expect((await sim.calls()).length).toBe(reads);
      expect((await history()).json().items).toEqual(before);
    } finally {
      if (previous === undefined) delete process.env.SERENITY_POOL_VIEW_MAX_AGE_MS;
      else process.env.SERENITY_POOL_VIEW_MAX_AGE_MS = previous;
    }
  });

  it("never lists a sample past the retention, however far back `since` asks", async () => {
    const previous = process.env.SERENITY_POOL_HISTORY_RETENTION_MS;
    process.env.SERENITY_POOL_HISTORY_RETENTION_MS = String(10 * 60 * 1000);
    try {
      clock.advance(60 * 60 * 1000);
      expect((await readPool()).statusCode).toBe(200);
      await t.services.poolView.settled();
      const body = (await history("?since=2026-01-01T00:00:00Z")).json();
      expect(body.items).toHaveLength(1);
      expect(body.items[0].sampledAt).toBe(clock.now().toISOString());
      expect(body.retentionMs).toBe(600_000);
      // The window never reaches before the retention.
      expect(body.since).toBe(new Date(clock.now().getTime() - 600_000).toISOString());
    } finally {
      if (previous === undefined) delete process.env.SERENITY_POOL_HISTORY_RETENTION_MS;
      else process.env.SERENITY_POOL_HISTORY_RETENTION_MS = previous;
    }
  });

  it("rejects a malformed window with 400", async () => {
    for (const query of [
      "?since=yesterday",
      "?limit=0",
      "?limit=2001",
      "?since=2026-13-45T00:00:00Z",
      "?x=1",
    ]) {
      const response = await history(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error).toBe("invalidRequest");
    }
  });

  it("is 404 for an org the caller may not access, and 401 without a token", async () => {
    const outsider = await t.token({ sub: "outsider", orgs: [otherOrgId] });
    expect((await history("", outsider)).statusCode).toBe(404);
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await history("", admin, unknown)).statusCode).toBe(404);
    const anonymous = await t.app.inject({ method: "GET", url: `/v2/orgs/${orgId}/serenity/pool-history` });
    expect(anonymous.statusCode).toBe(401);
    expect((await history("", admin, "not-a-uuid")).statusCode).toBe(400);
  });
});

describe("GET /v2/serenity/pool-summaries", () => {
  it("gives the newest sample of each accessible org, and nothing of other orgs", async () => {
    const latest = (await history()).json().items.at(-1);
    const all = await t.app.inject({
      method: "GET",
      url: "/v2/serenity/pool-summaries",
      headers: auth(admin),
    });
    expect(all.statusCode).toBe(200);
    expect(all.json().items).toEqual([{ orgId, ...latest }]);

    const member = await t.token({ sub: "member", orgs: [orgId] });
    const mine = await t.app.inject({
      method: "GET",
      url: "/v2/serenity/pool-summaries",
      headers: auth(member),
    });
    expect(mine.json().items.map((item: { orgId: string }) => item.orgId)).toEqual([orgId]);

    const outsider = await t.token({ sub: "outsider", orgs: [otherOrgId] });
    const theirs = await t.app.inject({
      method: "GET",
      url: "/v2/serenity/pool-summaries",
      headers: auth(outsider),
    });
    expect(theirs.json().items).toEqual([]);
  });
});
