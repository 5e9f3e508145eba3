import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Principal } from "../../../src/auth/principal.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { type RedisServer, startRedisServer } from "../../support/redisServer.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * The API's own request limits (docs/decisions/0029), in-process, on their real stores: the
 * PostgreSQL one with time driven by the test (a window rolls over when its time has passed, and
 * not a moment before), and the Redis one on a real `redis-server` — its per-token and per-org
 * counts, one runaway token not locking its org out, and fail-open: a Redis that goes away lets
 * requests through instead of refusing them. (Across processes: test/reliability/apiRateLimitMultiProcess.)
 */
const ADMIN: Principal = { sub: "admin", orgIds: [], isAdmin: true, bearer: "unused" };

async function get(t: TestApp, token: string, url: string) {
  const response = await t.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.statusCode,
    code: (response.json() as { error?: string }).error,
    retryAfter: Number(response.headers["retry-after"]),
  };
}

async function status(t: TestApp, token: string, url: string): Promise<number> {
  return (await get(t, token, url)).status;
}

describe("API limits on PostgreSQL, on the test's clock", () => {
  const clock = new ManualClock(new Date());
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      clock,
      rateLimits: { perOrg: 0, perToken: 3, windowMs: 60_000, redisUrl: undefined },
    });
  });
  afterAll(() => t?.close());

  it("a token's window ends when its time has passed: refused until then, served after", async () => {
    const token = await t.token({ sub: "window-user" });
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push(await status(t, token, "/v2/orgs"));
    expect(statuses).toEqual([200, 200, 200, 429]);
    let refused = await get(t, token, "/v2/orgs");
    expect(refused).toEqual({ status: 429, code: "rateLimited", retryAfter: 60 });

    // Half the window later: still refused, and Retry-After says the half that is left.
    clock.advance(30_000);
    refused = await get(t, token, "/v2/orgs");
    expect(refused).toEqual({ status: 429, code: "rateLimited", retryAfter: 30 });

    // A millisecond before the window ends: refused; at its end: a new window, three more.
    clock.advance(30_000 - 1);
    expect(await status(t, token, "/v2/orgs")).toBe(429);
    clock.advance(1);
    const next = [];
    for (let i = 0; i < 4; i += 1) next.push(await status(t, token, "/v2/orgs"));
    expect(next).toEqual([200, 200, 200, 429]);
  });
});

describe("API limits in Redis", () => {
  let redis: RedisServer;
  let t: TestApp;
  let orgId: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    t = await createTestApp({
      rateLimits: { perOrg: 5, perToken: 3, windowMs: 3_600_000, redisUrl: redis.url },
    });
    orgId = (await t.services.orgs.create(ADMIN, { name: "Redis-limited org" })).id;
    // The store's client connects in the background and sends nothing before it is connected (no
    // offline queue): a count it cannot send fails open. On a loaded machine the first requests
    // could come before the connection, go uncounted, and a runaway token's fourth request pass
    // (seen in a fresh-clone run). Start once a fresh token's first request is counted.
    await waitFor(
      async () => {
        const token = await t.token({ sub: `warm-up-${randomUUID()}` });
        const response = await t.app.inject({
          method: "GET",
          url: "/v2/orgs",
          headers: { authorization: `Bearer ${token}` },
        });
        return /;r=2;/.test(String(response.headers.ratelimit));
      },
      { what: "the Redis store counting" },
    );
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it("counts per token and per org; a runaway token does not spend its org's budget; fail-open when Redis goes away", async () => {
    const url = `/v2/orgs/${orgId}`;
    const runaway = await t.token({ sub: "runaway", orgs: [orgId] });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push(await status(t, runaway, url));
    expect(statuses).toEqual([200, 200, 200]);
    // The runaway token keeps trying: refused every time, and none of it counts against the org.
    for (let i = 0; i < 10; i += 1) expect(await status(t, runaway, url)).toBe(429);

    // Another token of the org has the org's remaining 2 of 5, then the org's limit refuses it.
    const other = await t.token({ sub: "other", orgs: [orgId] });
    expect([await status(t, other, url), await status(t, other, url), await status(t, other, url)]).toEqual([
      200, 200, 429,
    ]);
    // An outsider's requests to the org are 404 and count against nothing of the org's.
    const outsider = await t.token({ sub: "outsider", orgs: [] });
    expect(await status(t, outsider, url)).toBe(404);

    // Redis goes away: the limits' store cannot answer, and requests go through (the limits
    // protect the service; they must not take it down with their store).
    await redis.stop();
    const fresh = await t.token({ sub: "after-the-outage", orgs: [orgId] });
    const during = [];
    for (let i = 0; i < 6; i += 1) during.push(await status(t, fresh, url));
    expect(during).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await status(t, runaway, url)).toBe(200);
  });
});
