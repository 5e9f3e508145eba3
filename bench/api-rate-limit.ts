/**
 * What the API's per-org and per-token limits (ADR 0029) add per request: the same authenticated
 * route on three Fastify apps side by side — no limiter, the PostgreSQL store (one upsert per
 * limit, two per request), the Redis store (@fastify/rate-limit's Lua script, two per request) —
 * rounds interleaved in rotating order, sequential `inject()` requests, medians per request and
 * ratios to no limiter.
 * The limits are set high so nothing is refused: this is the cost of counting.
 *
 *   DATABASE_URL=… REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/api-rate-limit.ts [--requests 400] [--rounds 5]
 *
 * Without REDIS_URL it tries redis://127.0.0.1:6379 and leaves Redis out when nothing answers there.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";

import { type ApiRateLimits, registerApiRateLimits } from "../src/api/rateLimits.ts";
import { openDatabase } from "../src/db/database.ts";
import { createLogger } from "../src/observability/logger.ts";
import { PostgresRateLimitStore } from "../src/runtime/apiRateLimitStore.ts";
import { printTable } from "./allocation-support.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({
  options: { requests: { type: "string", default: "400" }, rounds: { type: "string", default: "5" } },
});
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const ORG_ID = "5b2f3c1e-0d7a-4c55-9d1e-6f7a8b9c0d1e";
const HIGH = 1_000_000_000;

const scratch = await scratchDatabase("api-rate-limit");
const database = openDatabase(scratch.url, { max: 10 });
const logger = createLogger({ level: "silent" });

async function redisClient(): Promise<Redis | undefined> {
  const client = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", {
    maxRetriesPerRequest: 1,
    connectTimeout: 1_000,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch {
    client.disconnect();
    return undefined;
  }
}

/** The route and the authentication a real app has, then the limits under test (if any). */
async function app(limits: ApiRateLimits | undefined): Promise<FastifyInstance> {
  const instance = Fastify({ logger: false });
  instance.addHook("preValidation", async (request) => {
    const bearer = request.headers.authorization!.slice("Bearer ".length);
    request.principal = { sub: "bench", orgIds: [ORG_ID], isAdmin: false, bearer };
  });
  if (limits) await registerApiRateLimits(instance, limits);
  instance.get("/v2/orgs/:orgId", async (request) => ({ id: (request.params as { orgId: string }).orgId }));
  await instance.ready();
  return instance;
}

const redis = await redisClient();
const contenders: [string, FastifyInstance][] = [
  ["no limiter", await app(undefined)],
  [
    "PostgreSQL store",
    await app({
      perOrg: HIGH,
      perToken: HIGH,
      windowMs: 60_000,
      store: { kind: "custom", store: new PostgresRateLimitStore(database.db, logger) },
    }),
  ],
];
if (redis) {
  contenders.push([
    "Redis store",
    await app({ perOrg: HIGH, perToken: HIGH, windowMs: 60_000, store: { kind: "redis", client: redis } }),
  ]);
}

async function round(instance: FastifyInstance, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i += 1) {
    const response = await instance.inject({
      method: "GET",
      url: `/v2/orgs/${ORG_ID}`,
      headers: { authorization: "Bearer bench-token" },
    });
    if (response.statusCode !== 200) throw new Error(`answered ${response.statusCode}`);
  }
  return ((performance.now() - started) / count) * 1000;
}

try {
  for (const [, instance] of contenders) await round(instance, 50);
  const samples = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
  // Every contender runs once per round, the order rotating round by round: none always runs first
  // (on a cold cache) or last (on whatever the others left behind).
  for (let r = 0; r < ROUNDS; r += 1) {
    const order = contenders.map((_, i) => contenders[(i + r) % contenders.length]!);
    for (const [name, instance] of order) samples.get(name)!.push(await round(instance, REQUESTS));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const base = median(samples.get("no limiter")!);
  console.log(
    `api-rate-limit: ${ROUNDS} rounds × ${REQUESTS} sequential requests per contender, interleaved in rotating order; per-org and per-token limits on${redis ? "" : " (no Redis answered: left out)"}\n`,
  );
  printTable(
    ["contender", "median µs / request", "added µs", "ratio"],
    contenders.map(([name]) => {
      const value = median(samples.get(name)!);
      return [name, value.toFixed(0), (value - base).toFixed(0), `${(value / base).toFixed(2)}×`];
    }),
  );
} finally {
  for (const [, instance] of contenders) await instance.close();
  redis?.disconnect();
  await database.close();
  await scratch.drop();
}
