import { createHash } from "node:crypto";

import rateLimit, { type FastifyRateLimitStore } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";

import { canAccessOrg } from "../auth/principal.ts";
import { ServiceError } from "../domain/errors.ts";

/**
 * The API's own request limits, per org and per bearer token, counted by @fastify/rate-limit in a
 * store every `serve` process shares (PostgreSQL, or Redis when REDIS_URL is set; the runtime
 * picks it, docs/decisions/0029). Only authenticated requests count, after authentication: the
 * public routes (health, metrics, docs, the console's pages) and a request without a valid token
 * never do, and a caller counts against an org only where it may act. Past a limit the answer is
 * 429 `rateLimited` with `Retry-After`: the seconds until the window of the limit that was hit ends.
 */
export interface ApiRateLimits {
  /** Requests per window per org; 0 = no org limit. */
  perOrg: number;
  /** Requests per window per bearer token; 0 = no token limit. */
  perToken: number;
  windowMs: number;
  /** A shared store (the PostgreSQL one), or an ioredis client for the library's Redis store. */
  store: { kind: "custom"; store: FastifyRateLimitStore } | { kind: "redis"; client: unknown };
}

/** The counter key of a bearer: a digest, so no token reaches the store. */
function tokenKey(bearer: string): string {
  return `token:${createHash("sha256").update(bearer).digest("base64url")}`;
}

function orgOf(request: FastifyRequest): string | undefined {
  const orgId = (request.params as { orgId?: unknown } | undefined)?.orgId;
  if (typeof orgId !== "string" || !request.principal) return undefined;
  return canAccessOrg(request.principal, orgId) ? orgId : undefined;
}

/** One limit's state for this request, as the RateLimit fields say it. */
export interface RateLimitState {
  policy: "token" | "org";
  quota: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * `RateLimit-Policy` lists every limit that counted the request; `RateLimit` gives the one nearest
 * exhaustion (the smallest remaining share of its quota; the sooner reset on a tie), as the IETF
 * draft (draft-ietf-httpapi-ratelimit-headers) spells them: `"token";q=60000;w=60` and
 * `"org";r=12;t=31`.
 */
export function rateLimitFields(states: readonly RateLimitState[]): Record<string, string> | undefined {
  if (states.length === 0) return undefined;
  const nearest = [...states].sort(
    (a, b) => a.remaining / a.quota - b.remaining / b.quota || a.resetSeconds - b.resetSeconds,
  )[0]!;
  return {
    ratelimit: `"${nearest.policy}";r=${nearest.remaining};t=${nearest.resetSeconds}`,
    "ratelimit-policy": states
      .map((state) => `"${state.policy}";q=${state.quota};w=${state.windowSeconds}`)
      .join(", "),
  };
}

export async function registerApiRateLimits(app: FastifyInstance, limits: ApiRateLimits): Promise<void> {
  const { store } = limits;
  await app.register(rateLimit, {
    global: false,
    // A store that cannot answer (its database or Redis down) lets the request through: the
    // limits protect the service, they must not take it down with their store.
    skipOnError: true,
    ...(store.kind === "redis"
      ? { redis: store.client, nameSpace: "serenity-api-limit:" }
      : {
          store: function sharedStore() {
            return store.store;
          } as unknown as new () => FastifyRateLimitStore,
        }),
  });
  const checks: {
    policy: "token" | "org";
    check: ReturnType<FastifyInstance["createRateLimit"]>;
    applies: (r: FastifyRequest) => boolean;
  }[] = [];
  if (limits.perToken > 0) {
    checks.push({
      policy: "token",
      check: app.createRateLimit({
        max: limits.perToken,
        timeWindow: limits.windowMs,
        keyGenerator: (request) => tokenKey(request.principal!.bearer),
      }),
      applies: () => true,
    });
  }
  if (limits.perOrg > 0) {
    checks.push({
      policy: "org",
      check: app.createRateLimit({
        max: limits.perOrg,
        timeWindow: limits.windowMs,
        keyGenerator: (request) => `org:${orgOf(request)}`,
      }),
      applies: (request) => orgOf(request) !== undefined,
    });
  }
  if (checks.length === 0) return;
  // The token's limit first, and the org's only for a request its token may still make: a
  // runaway token's refused requests must not spend its org's budget and lock the org's other
  // callers out (test/reliability/apiRateLimitMultiProcess.test.ts).
  app.addHook("preHandler", async (request, reply) => {
    if (!request.principal) return;
    const counted: RateLimitState[] = [];
    for (const { policy, check, applies } of checks) {
      if (!applies(request)) continue;
      const result = await check(request);
      if (result.isAllowed) continue;
      counted.push({
        policy,
        quota: result.max,
        windowSeconds: Math.ceil(result.timeWindow / 1000),
        remaining: Math.max(0, result.remaining),
        resetSeconds: Math.max(0, result.ttlInSeconds),
      });
      // The IETF RateLimit fields, for whichever limit is nearest exhaustion (docs/decisions/0037).
      const fields = rateLimitFields(counted);
      if (fields) void reply.headers(fields);
      if (!result.isExceeded) continue;
      void reply.header("retry-after", String(Math.max(result.ttlInSeconds, 1)));
      throw new ServiceError("rateLimited");
    }
  });
}
