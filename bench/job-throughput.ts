/**
 * Job throughput of one worker process: hops per second of our fetch loop against no-op handlers
 * (each hop = load the record, claim the lease, run, complete by compare-and-set, acknowledge),
 * side by side with pg-boss 10's own `work()` polling (defaults, and batchSize 50 / 0.5 s) moving
 * bare messages with nothing else to do; then the queue lag of our loop at a steady arrival rate.
 *
 *   npx tsx bench/job-throughput.ts [--jobs 2000] [--concurrency 20] [--baseline-seconds 10]
 *                                   [--rate 200] [--rate-seconds 5]
 *
 * Uses DATABASE_URL's server when set (a scratch database is created and dropped), else an
 * embedded PostgreSQL in a temporary directory.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";

import { count, eq } from "drizzle-orm";
import PgBoss from "pg-boss";

import { ephemeralCredentialKey } from "../src/credentials/credentialKey.ts";
import { CredentialStore } from "../src/credentials/credentialStore.ts";
import { openDatabase } from "../src/db/database.ts";
import { insertJob } from "../src/db/jobs/insertJob.ts";
import { jobs } from "../src/db/schema.ts";
import { systemClock } from "../src/domain/clock.ts";
import { defineJobHandler } from "../src/jobs/handler.ts";
import { createPgBossQueue } from "../src/jobs/queue.ts";
import { JobRegistry } from "../src/jobs/registry.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({
  options: {
    jobs: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "20" },
    "baseline-seconds": { type: "string", default: "10" },
    rate: { type: "string", default: "200" },
    "rate-seconds": { type: "string", default: "5" },
  },
});
const JOBS = Number(args.jobs);
const CONCURRENCY = Number(args.concurrency);
const BASELINE_SECONDS = Number(args["baseline-seconds"]);
const RATE = Number(args.rate);
const RATE_SECONDS = Number(args["rate-seconds"]);

const logger = createLogger({ level: "warn" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  const scratch = await scratchDatabase("jobs");
  const url = scratch.url;
  const database = openDatabase(url, { max: CONCURRENCY + 5 });

  const events = new EventBus();
  const registry = new JobRegistry().registerHandler(
    defineJobHandler({
      type: "noop",
      publicType: "noop",
      timeoutMs: 5_000,
      leaseTtlMs: 10_000,
      maxAttempts: 3,
      async handle() {
        return {};
      },
    }),
  );
  const queue = createPgBossQueue({ pool: database.pool, logger });
  await queue.start();
  const credentials = new CredentialStore({
    db: database.db,
    clock: systemClock,
    logger,
    key: ephemeralCredentialKey(),
  });
  const newWorker = () =>
    new JobWorker(
      {
        db: database.db,
        clock: systemClock,
        logger,
        events,
        registry,
        queue,
        credentials,
      },
      { concurrency: CONCURRENCY, batchSize: 50, reconcileIntervalMs: 0 },
    );
  const submit = async () => {
    const id = randomUUID();
    await database.db.transaction(async (tx) => {
      await insertJob(tx, {
        id,
        type: "noop",
        orgId: "00000000-0000-4000-8000-000000000001",
        brandId: null,
        metadata: {},
        credentialId: null,
        createdBy: null,
        now: new Date(),
      });
      await queue.enqueue(id, { db: tx });
    });
  };
  const completed = async () =>
    (await database.db.select({ n: count() }).from(jobs).where(eq(jobs.status, "COMPLETED")))[0]!.n;

  // 1. Our fetch loop draining a backlog.
  for (let done = 0; done < JOBS; done += 50) await Promise.all(Array.from({ length: 50 }, submit));
  const worker = newWorker();
  const started = performance.now();
  await worker.start();
  while ((await completed()) < JOBS) await sleep(20);
  const oursSeconds = (performance.now() - started) / 1000;
  await worker.stop();
  const oursRate = JOBS / oursSeconds;

  // 2. pg-boss work() moving bare messages (no record, no lease: an upper bound for that loop).
  const boss = new PgBoss({ db: { executeSql: (text, values) => database.pool.query(text, values) } });
  boss.on("error", () => {});
  await boss.start();
  const workRate = async (queueName: string, options: PgBoss.WorkOptions) => {
    await boss.createQueue(queueName);
    await boss.insert(Array.from({ length: 5000 }, () => ({ name: queueName, data: {} })));
    let moved = 0;
    const workerId = await boss.work(queueName, options, async (batch) => {
      moved += batch.length;
    });
    await sleep(BASELINE_SECONDS * 1000);
    await boss.offWork({ id: workerId });
    return moved / BASELINE_SECONDS;
  };
  const defaultRate = await workRate("bench-work-default", {});
  const tunedRate = await workRate("bench-work-tuned", { batchSize: 50, pollingIntervalSeconds: 0.5 });
  await boss.stop({ graceful: false, close: false });

  // 3. Queue lag of our loop at a steady arrival rate.
  const lags: number[] = [];
  const unsubscribe = events.on("job.delivered", ({ lagSeconds }) => lags.push(lagSeconds * 1000));
  const steady = newWorker();
  await steady.start();
  const before = await completed();
  const total = RATE * RATE_SECONDS;
  const tick = 50;
  const perTick = Math.max(1, Math.round((RATE * tick) / 1000));
  for (let sent = 0; sent < total; sent += perTick) {
    const tickStart = performance.now();
    await Promise.all(Array.from({ length: Math.min(perTick, total - sent) }, submit));
    await sleep(Math.max(0, tick - (performance.now() - tickStart)));
  }
  while ((await completed()) < before + total) await sleep(20);
  await steady.stop();
  unsubscribe();
  lags.sort((a, b) => a - b);

  const fmt = (n: number) => n.toFixed(1).padStart(8);
  process.stdout.write(
    [
      "",
      `one worker process, concurrency ${CONCURRENCY}, no-op handlers, ${JOBS} queued jobs`,
      "",
      "| contender                                      |  hops/s | ratio to ours |",
      "| ---------------------------------------------- | ------: | ------------: |",
      `| ours: fetch loop (record + lease + CAS + ack)  | ${fmt(oursRate)} |          1.00 |`,
      `| pg-boss work(), defaults (bare messages)       | ${fmt(defaultRate)} | ${(defaultRate / oursRate).toFixed(3).padStart(13)} |`,
      `| pg-boss work(), batch 50 / 0.5 s (bare msgs)   | ${fmt(tunedRate)} | ${(tunedRate / oursRate).toFixed(3).padStart(13)} |`,
      "",
      `queue lag of ours at ${RATE} jobs/s for ${RATE_SECONDS} s (${lags.length} deliveries):`,
      `p50 ${percentile(lags, 50).toFixed(1)} ms, p95 ${percentile(lags, 95).toFixed(1)} ms, max ${(lags.at(-1) ?? NaN).toFixed(1)} ms`,
      "",
    ].join("\n"),
  );

  await queue.stop();
  await database.close();
  await scratch.drop();
}

await main();
