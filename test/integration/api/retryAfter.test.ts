import type { FastifyRateLimitStore } from "@fastify/rate-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { buildApp } from "../../../src/api/app.ts";
import { rateLimitFields } from "../../../src/api/rateLimits.ts";
import { RETRY_AFTER_CODES } from "../../../src/api/retryAfter.ts";
import { hs256Verifier, signDevToken } from "../../../src/auth/tokenVerifier.ts";
import { openDatabase } from "../../../src/db/database.ts";
import { type Clock, systemClock } from "../../../src/domain/clock.ts";
import { ERROR_CODES, ERROR_REGISTRY, type ErrorCode, ServiceError } from "../../../src/domain/errors.ts";
import { requestFingerprint } from "../../../src/domain/idempotency.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createMetrics } from "../../../src/observability/metrics.ts";
import { createServices } from "../../../src/runtime/services.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * `Retry-After` is sent exactly where the registry documents it: the registry's `when` says
 * "(Retry-After)" for a code if and only if every answer with that code carries the header. The
 * walk provokes each code through the app's one error path; the two codes raised outside a
 * service (a repeat of an idempotent create still running, and the API's own rate limit) are then
 * provoked for real.
 */
const SECRET = "retry-after-test-secret-long-enough-0123456789";

/** An app on a database that is never reached, whose org listing fails with the code asked for. */
async function failingApp(options: { rateLimits?: Parameters<typeof buildApp>[0]["rateLimits"] } = {}) {
  const database = openDatabase("postgres://retry-after@127.0.0.1:1/none");
  const events = new EventBus();
  const logger = createLogger({ level: "silent" });
  const services = createServices({ db: database.db, clock: systemClock, events, logger });
  let failWith: ErrorCode | undefined;
  services.orgs.list = async () => {
    if (failWith) throw new ServiceError(failWith);
    return [];
  };
  const app = await buildApp({
    logger,
    events,
    metrics: createMetrics(events),
    verifier: hs256Verifier(SECRET),
    services,
    readiness: async () => ({ ready: true, checks: {} }),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  await app.ready();
  return {
    app,
    failWith: (code: ErrorCode | undefined) => (failWith = code),
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

/** @fastify/rate-limit's store contract, in memory: a fixed window per key. */
class MemoryStore implements FastifyRateLimitStore {
  readonly counts = new Map<string, { current: number; endsAt: number }>();
  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
  ) {
    const now = Date.now();
    const entry = this.counts.get(key);
    const next =
      entry && entry.endsAt > now
        ? { ...entry, current: entry.current + 1 }
        : { current: 1, endsAt: now + timeWindow };
    this.counts.set(key, next);
    callback(null, { current: next.current, ttl: next.endsAt - now });
  }
  child(): FastifyRateLimitStore {
    return this;
  }
}

describe("Retry-After is true to the registry", () => {
  let world: Awaited<ReturnType<typeof failingApp>>;
  let token: string;
  beforeAll(async () => {
    world = await failingApp();
    token = await signDevToken(SECRET, { sub: "walker", admin: true });
  });
  afterAll(() => world.close());

  it("documents Retry-After in the registry for exactly the codes that carry it", () => {
    const documented = ERROR_CODES.filter((code) => ERROR_REGISTRY[code].when.includes("Retry-After"));
    expect(documented.sort()).toEqual(Object.keys(RETRY_AFTER_CODES).sort());
  });

  it("walks every registry code: the header comes with a documented code and never with another", async () => {
    for (const code of ERROR_CODES) {
      world.failWith(code);
      const response = await world.app.inject({
        method: "GET",
        url: "/v2/orgs",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode, code).toBe(ERROR_REGISTRY[code].status);
      expect(response.json().code, code).toBe(code);
      const expected = RETRY_AFTER_CODES[code];
      expect(response.headers["retry-after"], code).toBe(
        expected === undefined ? undefined : String(expected),
      );
    }
  });
});

describe("the codes raised outside a service carry it too", () => {
  let t: TestApp;
  beforeAll(async () => {
    // Each reading of this clock is 20 s after the last: the edge budget a request starts with
    // (15 s) has run out by the time the idempotency check reads the clock again, so a repeat
    // that meets a running first request answers at once instead of waiting for it.
    let readings = 0;
    const hurried: Clock = { ...systemClock, now: () => new Date(Date.now() + 20_000 * readings++) };
    t = await createTestApp({ clock: hurried });
  });
  afterAll(() => t.close());

  it("idempotencyKeyInProgress: a repeat of a create whose first request still runs", async () => {
    const admin = await t.token({ sub: "admin-retry", admin: true });
    const body = { name: "Still running" };
    const route = "POST /v2/orgs";
    // The first request holds the key (taken exactly as the route takes it) and has not answered.
    const held = await t.services.idempotency.start(
      { orgId: "", principal: "admin-retry", route, key: "key-held" },
      requestFingerprint(route, { params: {}, query: {}, body }),
      0,
    );
    expect(held.kind).toBe("run");
    const repeat = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${admin}`, "idempotency-key": "key-held" },
      payload: body,
    });
    expect(repeat.statusCode).toBe(409);
    expect(repeat.json().code).toBe("idempotencyKeyInProgress");
    expect(repeat.headers["retry-after"]).toBe("1");
  });

  it("rateLimited: past the per-token limit, the seconds until the window ends", async () => {
    const store = new MemoryStore();
    const limited = await failingApp({
      rateLimits: { perOrg: 0, perToken: 2, windowMs: 60_000, store: { kind: "custom", store } },
    });
    try {
      limited.failWith(undefined);
      const token = await signDevToken(SECRET, { sub: "eager", admin: true });
      const answers = [];
      for (let i = 0; i < 3; i += 1) {
        answers.push(
          await limited.app.inject({
            method: "GET",
            url: "/v2/orgs",
            headers: { authorization: `Bearer ${token}` },
          }),
        );
      }
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 429]);
      // The IETF RateLimit fields on every counted answer, the refusal included.
      expect(answers.map((answer) => answer.headers["ratelimit-policy"])).toEqual(
        Array(3).fill('"token";q=2;w=60'),
      );
      expect(answers.map((answer) => String(answer.headers.ratelimit).replace(/;t=\d+$/, ""))).toEqual([
        '"token";r=1',
        '"token";r=0',
        '"token";r=0',
      ]);
      expect(answers[2]!.json().code).toBe("rateLimited");
      const seconds = Number(answers[2]!.headers["retry-after"]);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
    } finally {
      await limited.close();
    }
  });
});

describe("the RateLimit fields", () => {
  it("name the limit nearest exhaustion by its remaining share, and list every policy", () => {
    const fields = rateLimitFields([
      { policy: "token", quota: 100, windowSeconds: 60, remaining: 40, resetSeconds: 30 },
      { policy: "org", quota: 1000, windowSeconds: 60, remaining: 100, resetSeconds: 20 },
    ]);
    expect(fields).toEqual({
      ratelimit: '"org";r=100;t=20',
      "ratelimit-policy": '"token";q=100;w=60, "org";q=1000;w=60',
    });
    expect(rateLimitFields([])).toBeUndefined();
  });
});
