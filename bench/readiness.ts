/**
 * How fast `/readyz` answers, to set the probes' timeouts, periods and thresholds from a
 * measurement (docs/decisions/0038). Over real HTTP against `createApiApp`, three situations side
 * by side, rounds interleaved:
 *
 *   - idle: nothing else uses the database; every probe queries (the 1 s answer cache bypassed);
 *   - saturated: every connection of the request pool checked out and 10 callers queued for one;
 *     the check runs on its own connection (every probe queries);
 *   - flood: 500 probes at once, cache on — how many queries they cost, and their latency;
 *
 * and, for the contrast the change was made for, the previous check (a query through the request
 * pool) once while the pool is saturated: it waits the pool's acquire timeout (set to 2 s here; 10 s
 * by default) and then fails.
 *
 *   DATABASE_URL=… npx tsx bench/readiness.ts [--probes 200] [--rounds 3]
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import pg from "pg";

import { loadConfig } from "../src/config/env.ts";
import { readReadiness } from "../src/db/readReadiness.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createApiApp, listen } from "../src/runtime/httpServer.ts";
import { createReadiness } from "../src/runtime/readiness.ts";
import { openRuntime } from "../src/runtime/runtime.ts";
import { printTable } from "./allocation-support.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({
  options: { probes: { type: "string", default: "200" }, rounds: { type: "string", default: "3" } },
});
const PROBES = Number(args.probes);
const ROUNDS = Number(args.rounds);
const POOL = 4;

const scratch = await scratchDatabase("readiness");
const config = loadConfig({
  DATABASE_URL: scratch.url,
  SERENITY_DB_POOL_SIZE: String(POOL),
  SERENITY_DB_ACQUIRE_TIMEOUT_MS: "2000",
  SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString("base64"),
  SERENITY_AUTH_SECRET: "readiness-bench-secret-0123456789",
});
const runtime = await openRuntime(config, createLogger({ level: "silent" }));
// A clock that moves 2 s per read, so every probe queries (the cache would answer most of them).
let fakeNow = Date.now();
const uncached = createReadiness(scratch.url, {
  timeoutMs: config.readinessTimeoutMs,
  clock: { ...runtime.clock, now: () => new Date((fakeNow += 2_000)) },
});
// The real check (cache on) for the flood, its query counted on a connection of its own.
const floodPool = new pg.Pool({ connectionString: scratch.url, max: 1 });
let floodQueries = 0;
const cached = createReadiness(scratch.url, {
  timeoutMs: config.readinessTimeoutMs,
  clock: runtime.clock,
  read: () => {
    floodQueries += 1;
    return readReadiness(floodPool);
  },
});
const app = await createApiApp({ ...runtime, readiness: uncached });
const url = await listen(app, 0, "127.0.0.1");
const floodApp = await createApiApp({ ...runtime, readiness: cached });
const floodUrl = await listen(floodApp, 0, "127.0.0.1");

async function probe(base = url): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${base}/readyz`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`/readyz answered ${response.status}`);
  return performance.now() - started;
}

async function sequential(n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await probe());
  return times;
}

async function saturate<T>(work: () => Promise<T>): Promise<T> {
  const pool = runtime.database.pool;
  const held: pg.PoolClient[] = [];
  while (pool.totalCount < POOL || pool.idleCount > 0) held.push(await pool.connect());
  const queued = Array.from({ length: 10 }, () => pool.query("select pg_sleep(0)").catch(() => undefined));
  try {
    return await work();
  } finally {
    for (const client of held) client.release();
    await Promise.all(queued);
  }
}

const samples: Record<string, number[]> = { idle: [], saturated: [], flood: [] };
const floodStarted = performance.now();
for (let round = 0; round < ROUNDS; round++) {
  samples.idle!.push(...(await sequential(PROBES)));
  samples.saturated!.push(...(await saturate(() => sequential(PROBES))));
  samples.flood!.push(...(await Promise.all(Array.from({ length: 500 }, () => probe(floodUrl)))));
}
const benchSeconds = (performance.now() - floodStarted) / 1000;

const previousWay = await saturate(async () => {
  const started = performance.now();
  const ok = await runtime.database.pool
    .query("select count(*) from drizzle.__drizzle_migrations")
    .then(() => true)
    .catch(() => false);
  return { ms: performance.now() - started, ok };
});

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const idleP50 = quantile(samples.idle!, 0.5);
printTable(
  ["situation", "probes", "p50 ms", "p99 ms", "max ms", "p50 ÷ idle"],
  Object.entries(samples).map(([name, values]) => [
    name,
    String(values.length),
    quantile(values, 0.5).toFixed(1),
    quantile(values, 0.99).toFixed(1),
    Math.max(...values).toFixed(1),
    (quantile(values, 0.5) / idleP50).toFixed(2),
  ]),
);
console.log(
  `flood: ${ROUNDS * 500} probes cost ${floodQueries} readiness queries over the run's ${benchSeconds.toFixed(0)} s (one answer shared per second at most)`,
);
console.log(
  `previous check through the saturated request pool: ${previousWay.ok ? "answered" : "failed"} after ${previousWay.ms.toFixed(0)} ms (acquire timeout 2000 ms)`,
);

await app.close();
await floodApp.close();
await uncached.close();
await cached.close();
await floodPool.end();
await runtime.close();
await scratch.drop();
