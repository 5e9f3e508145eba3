/**
 * What the shared upstream budget (docs/decisions/0019) costs per upstream call, side by side in
 * ONE run, request by request in rotating order so drift hits every contender alike:
 *
 *   npx tsx bench/upstream-budget.ts [--calls 300]
 *
 * - `none`: the gateway client with no budget (limits 0 — the unlimited path).
 * - `pg-slots`: our PostgreSQL slots (one guarded UPDATE … SKIP LOCKED to take, one UPDATE to
 *   release: 2 round trips) in front of the same call.
 * - `rlf-postgres`: rate-limiter-flexible's RateLimiterPostgres `consume()` in front of the same
 *   call (1 round trip; a rate only: no concurrency cap, no priorities, no waiting queue across
 *   processes — a refused call would have to sleep `msBeforeNext` and try again).
 *
 * Each call is `GET /v1/languages` against an in-process simulator with no latency, so the
 * difference is the budget's own cost. The budget is never binding here (no window between two
 * calls of a slot), so this is the uncontended overhead; the pacing itself is shown by
 * test/reliability/upstreamBudgetMultiProcess.test.ts (peaks observed at the upstream).
 * Then: 60 calls for one account from two budget instances at once with the real limits (10 / s,
 * 10 concurrent, 50 ms upstream latency): the achieved rate against the 10 / s ceiling.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import pg from "pg";
import { RateLimiterPostgres } from "rate-limiter-flexible";

import { PostgresUpstreamBudget } from "../src/budget/postgresUpstreamBudget.ts";
import { openDatabase } from "../src/db/database.ts";
import { systemClock } from "../src/domain/clock.ts";
import { createGatewayClient, type GatewayClient } from "../src/gateway/gatewayClient.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";
import { median, printTable } from "./allocation-support.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({ options: { calls: { type: "string", default: "300" } } });
const CALLS = Number(args.calls);
const WARMUP = 20;
const BEARER = "bench-user-token";

const scratch = await scratchDatabase("upstream-budget");
const database = openDatabase(scratch.url, { max: 10 });
const sim = await startSimulator({ seed: "gold", controls: true });
const logger = createLogger({ level: "silent" });
const credentialKey = randomBytes(32);

function budget(limits: { slots: number; windowMs: number }): PostgresUpstreamBudget {
  return new PostgresUpstreamBudget({
    db: database.db,
    clock: systemClock,
    events: new EventBus(),
    logger,
    limits: { ...limits, backgroundShare: 3 },
    credentialKey,
    leaseMs: 20_000,
  });
}

function client(withBudget?: PostgresUpstreamBudget): GatewayClient {
  return createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger,
    ...(withBudget ? { budget: withBudget } : {}),
  });
}

const rlfPool = new pg.Pool({ connectionString: scratch.url, max: 10 });
// The scratch database is dropped with (force) at the end: a pool's idle client may see that.
rlfPool.on("error", () => {});
database.pool.on("error", () => {});
const rlf = await new Promise<RateLimiterPostgres>((resolve, reject) => {
  const limiter: RateLimiterPostgres = new RateLimiterPostgres(
    { storeClient: rlfPool, points: 1_000_000_000, duration: 1, tableName: "rlf_bench", keyPrefix: "bench" },
    (error?: unknown) => (error ? reject(error) : resolve(limiter)),
  );
});

const none = client();
const slots = client(budget({ slots: 10, windowMs: 0 }));
const contenders: { name: string; call: () => Promise<unknown> }[] = [
  { name: "none", call: () => none.projects.listLanguages(BEARER) },
  { name: "pg-slots", call: () => slots.projects.listLanguages(BEARER) },
  {
    name: "rlf-postgres",
    call: async () => {
      await rlf.consume(BEARER);
      return none.projects.listLanguages(BEARER);
    },
  },
];

const samples = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
for (let i = 0; i < WARMUP + CALLS; i += 1) {
  for (let k = 0; k < contenders.length; k += 1) {
    const contender = contenders[(i + k) % contenders.length]!;
    const started = performance.now();
    await contender.call();
    if (i >= WARMUP) samples.get(contender.name)!.push(performance.now() - started);
  }
}
const base = median(samples.get("none")!);
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)]!;
console.log(`\nPer call, ${CALLS} calls each (GET /v1/languages, simulator latency 0):\n`);
printTable(
  ["contender", "median ms", "p95 ms", "added (median) ms", "ratio"],
  contenders.map(({ name }) => {
    const values = samples.get(name)!;
    return [
      name,
      median(values).toFixed(2),
      p95(values).toFixed(2),
      (median(values) - base).toFixed(2),
      `${(median(values) / base).toFixed(2)}×`,
    ];
  }),
);

// The limiter alone, no upstream call: what each one costs the caller per call.
const alone = budget({ slots: 10, windowMs: 0 });
const limiterOnly: { name: string; call: () => Promise<unknown> }[] = [
  {
    name: "pg-slots acquire + release",
    call: async () =>
      (
        await alone.acquire(BEARER, "projects", { priority: "job", deadlineAt: Date.now() + 60_000 })
      ).release(),
  },
  { name: "rlf-postgres consume", call: () => rlf.consume(BEARER) },
  { name: "select 1 (one round trip)", call: () => database.pool.query("select 1") },
];
const limiterSamples = new Map<string, number[]>(limiterOnly.map((c) => [c.name, []]));
for (let i = 0; i < WARMUP + CALLS; i += 1) {
  for (let k = 0; k < limiterOnly.length; k += 1) {
    const contender = limiterOnly[(i + k) % limiterOnly.length]!;
    const at = performance.now();
    await contender.call();
    if (i >= WARMUP) limiterSamples.get(contender.name)!.push(performance.now() - at);
  }
}
console.log(`\nThe limiter alone, ${CALLS} calls each:\n`);
printTable(
  ["limiter", "median ms", "p95 ms"],
  limiterOnly.map(({ name }) => {
    const values = limiterSamples.get(name)!;
    return [name, median(values).toFixed(2), p95(values).toFixed(2)];
  }),
);

// Paced: two budget instances (two "processes") share one account's budget under the real limits.
await fetch(`${sim.url}/__sim/settings`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ latencyMs: 50 }),
});
const paced = [
  client(budget({ slots: 10, windowMs: 1_050 })),
  client(budget({ slots: 10, windowMs: 1_050 })),
];
const PACED_CALLS = 60;
const pacedBearer = `paced-${randomBytes(4).toString("hex")}`;
const started = performance.now();
await Promise.all(
  Array.from({ length: PACED_CALLS }, (_, i) => paced[i % 2]!.projects.listLanguages(pacedBearer)),
);
const seconds = (performance.now() - started) / 1000;
console.log(
  `\nPaced: ${PACED_CALLS} calls, one account, two budget instances, 10 / s, 10 concurrent, 50 ms latency:\n`,
);
// At the limit: 10 calls at once, each slot reused 1.05 s after its 50 ms call ended.
const expected = (PACED_CALLS / 10 - 1) * (1.05 + 0.05) + 0.05;
printTable(
  ["calls", "seconds", "seconds expected at the limit", "ratio"],
  [[String(PACED_CALLS), seconds.toFixed(2), expected.toFixed(2), `${(seconds / expected).toFixed(2)}×`]],
);

for (const c of [none, slots, ...paced]) await c.close();
await rlfPool.end();
await database.close();
await sim.close();
await scratch.drop();
