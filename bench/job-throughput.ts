/**
 * Job throughput of one worker process, like with like. Three contenders, the same concurrency,
 * each first draining a backlog (hops or messages per second) and then fed the same steady arrival
 * rate (queue lag, from the send to the handler's start):
 *
 * - ours: the fetch loop against no-op handlers (each hop = load the record, claim the lease, run,
 *   complete by compare-and-set, acknowledge);
 * - pg-boss 10 `fetch()` in a tight loop, as many loops as our concurrency, each fetching one bare
 *   message and completing it (what our loop stands on, without the record work);
 * - pg-boss 10 `work()`, its own polling worker, with `batchSize` sized to keep up with twice the
 *   arrival rate at its shortest polling interval (0.5 s), bare messages.
 *
 * Ours is fed `--rate` (a record and its message per job, one transaction each); the pg-boss
 * contenders are fed the rate ours achieved in its latest run, so the lags are at one arrival rate.
 * Every contender runs once per round with its own queue and counters, the order rotating round by
 * round (round 1: ours, fetch loop, work(); round 2: fetch loop, work(), ours; …), so none always
 * runs first on a machine whose load moves; the table has one row per run, in run order.
 *
 *   npx tsx bench/job-throughput.ts [--jobs 2000] [--concurrency 20] [--rate 200] [--rate-seconds 5]
 *                                   [--rounds 3]
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
    rate: { type: "string", default: "200" },
    "rate-seconds": { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
  },
});
const JOBS = Number(args.jobs);
const CONCURRENCY = Number(args.concurrency);
const RATE = Number(args.rate);
const RATE_SECONDS = Number(args["rate-seconds"]);
const ROUNDS = Number(args.rounds);

const logger = createLogger({ level: "warn" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sends `rate` per second for `RATE_SECONDS`, in 50 ms ticks; `send(n)` sends n at once. */
async function arrive(
  send: (n: number) => Promise<unknown>,
  rate: number,
): Promise<{ total: number; rate: number }> {
  const total = Math.round(rate * RATE_SECONDS);
  const started = performance.now();
  const tick = 50;
  const perTick = Math.max(1, Math.round((rate * tick) / 1000));
  for (let sent = 0; sent < total; sent += perTick) {
    const tickStart = performance.now();
    await send(Math.min(perTick, total - sent));
    await sleep(Math.max(0, tick - (performance.now() - tickStart)));
  }
  // What was achieved: a send slower than its tick lowers the rate (ours sends a record and its
  // message in one transaction each; pg-boss's bare messages go in one insert per tick).
  return { total, rate: total / ((performance.now() - started) / 1000) };
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(0)} ms`;
};

async function main() {
  const scratch = await scratchDatabase("jobs");
  const url = scratch.url;
  const database = openDatabase(url, { max: CONCURRENCY + 5 });

  /** The queue lag samples (ms from the send to the handler's start) of the run in progress. */
  let oursLags: number[] = [];
  const events = new EventBus();
  const registry = new JobRegistry().registerHandler(
    defineJobHandler({
      type: "noop",
      publicType: "noop",
      timeoutMs: 5_000,
      leaseTtlMs: 10_000,
      maxAttempts: 3,
      async handle(ctx) {
        const sentAt = (ctx.metadata as { sentAt?: number }).sentAt;
        if (typeof sentAt === "number") oursLags.push(Date.now() - sentAt);
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
  const submit = async (sentAt?: number) => {
    const id = randomUUID();
    await database.db.transaction(async (tx) => {
      await insertJob(tx, {
        id,
        type: "noop",
        orgId: "00000000-0000-4000-8000-000000000001",
        brandId: null,
        metadata: sentAt === undefined ? {} : { sentAt },
        credentialId: null,
        createdBy: null,
        now: new Date(),
      });
      await queue.enqueue(id, { db: tx });
    });
  };
  const completed = async () =>
    (await database.db.select({ n: count() }).from(jobs).where(eq(jobs.status, "COMPLETED")))[0]!.n;

  // pg-boss on the same database, bare messages ({sentAt} only, for the lag).
  const boss = new PgBoss({ db: { executeSql: (text, values) => database.pool.query(text, values) } });
  boss.on("error", () => {});
  await boss.start();
  const send = (queueName: string, n: number) =>
    boss.insert(Array.from({ length: n }, () => ({ name: queueName, data: { sentAt: Date.now() } })));
  const backlog = async (queueName: string) => {
    await boss.createQueue(queueName);
    for (let done = 0; done < JOBS; done += 500) await send(queueName, Math.min(500, JOBS - done));
  };

  interface Outcome {
    drained: number;
    arrival: { total: number; rate: number };
    lags: number[];
  }
  /** The arrival rate ours achieved in its latest run: what the pg-boss contenders are fed. */
  let oursAchieved = RATE;

  // Ours: the fetch loop draining a backlog, then at the steady rate. Its counts start from the
  // COMPLETED rows already there (earlier rounds').
  const runOurs = async (): Promise<Outcome> => {
    // The worker stops the queue with itself: an earlier round's run left it stopped.
    await queue.start();
    const base = await completed();
    for (let done = 0; done < JOBS; done += 50)
      await Promise.all(Array.from({ length: Math.min(50, JOBS - done) }, () => submit()));
    oursLags = [];
    const worker = newWorker();
    const started = performance.now();
    await worker.start();
    while ((await completed()) < base + JOBS) await sleep(20);
    const drained = JOBS / ((performance.now() - started) / 1000);
    const arrival = await arrive(
      (n) => Promise.all(Array.from({ length: n }, () => submit(Date.now()))),
      RATE,
    );
    while ((await completed()) < base + JOBS + arrival.total) await sleep(20);
    await worker.stop();
    oursAchieved = arrival.rate;
    return { drained, arrival, lags: oursLags };
  };

  // pg-boss fetch() in a tight loop, CONCURRENCY loops of fetch-one-then-complete. An empty fetch
  // retries after 10 ms (ours waits for a wake-up instead; a bare spin would only load the database).
  const runFetchLoop = async (round: number): Promise<Outcome> => {
    const queueName = `bench-fetch-loop-${round}`;
    await backlog(queueName);
    const lags: number[] = [];
    let fetched = 0;
    let recordLag = false;
    let fetching = true;
    const loops = Array.from({ length: CONCURRENCY }, async () => {
      while (fetching) {
        const batch = await boss.fetch<{ sentAt: number }>(queueName, { batchSize: 1 });
        if (batch.length === 0) {
          await sleep(10);
          continue;
        }
        if (recordLag) for (const job of batch) lags.push(Date.now() - job.data.sentAt);
        await boss.complete(
          queueName,
          batch.map((job) => job.id),
        );
        fetched += batch.length;
      }
    });
    const started = performance.now();
    while (fetched < JOBS) await sleep(20);
    const drained = JOBS / ((performance.now() - started) / 1000);
    recordLag = true;
    const arrival = await arrive((n) => send(queueName, n), oursAchieved);
    while (fetched < JOBS + arrival.total) await sleep(20);
    fetching = false;
    await Promise.all(loops);
    return { drained, arrival, lags };
  };

  // pg-boss work(): its polling worker, at its shortest interval, with a batch that holds two
  // intervals' worth of arrivals (capacity twice the arrival rate).
  const intervalSeconds = 0.5;
  const batchSize = Math.ceil(2 * RATE * intervalSeconds);
  const runWork = async (round: number): Promise<Outcome> => {
    const queueName = `bench-work-${round}`;
    await backlog(queueName);
    const lags: number[] = [];
    let worked = 0;
    let recordLag = false;
    const started = performance.now();
    const workerId = await boss.work<{ sentAt: number }>(
      queueName,
      { batchSize, pollingIntervalSeconds: intervalSeconds },
      async (batch) => {
        if (recordLag) for (const job of batch) lags.push(Date.now() - job.data.sentAt);
        worked += batch.length;
      },
    );
    while (worked < JOBS) await sleep(20);
    const drained = JOBS / ((performance.now() - started) / 1000);
    recordLag = true;
    const arrival = await arrive((n) => send(queueName, n), oursAchieved);
    while (worked < JOBS + arrival.total) await sleep(20);
    await boss.offWork({ id: workerId });
    return { drained, arrival, lags };
  };

  const contenders: [string, (round: number) => Promise<Outcome>][] = [
    [`ours: fetch loop (record + lease + CAS + ack), concurrency ${CONCURRENCY}`, runOurs],
    [`pg-boss fetch() tight loop × ${CONCURRENCY}, bare messages`, runFetchLoop],
    [`pg-boss work(), batch ${batchSize} / ${intervalSeconds} s, bare messages`, runWork],
  ];
  const runs: { round: number; name: string; outcome: Outcome }[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const shift = (round - 1) % contenders.length;
    for (const [name, run] of [...contenders.slice(shift), ...contenders.slice(0, shift)])
      runs.push({ round, name, outcome: await run(round) });
  }
  await boss.stop({ graceful: false, close: false });

  // Ratios within a round: each contender's drain rate over ours' in the same round.
  const oursIn = (round: number) =>
    runs.find((run) => run.round === round && run.name === contenders[0]![0])!;
  const fmt = (n: number) => n.toFixed(0).padStart(6);
  process.stdout.write(
    [
      "",
      `one process, concurrency ${CONCURRENCY}, ${JOBS} queued; then ${RATE} /s asked for ${RATE_SECONDS} s; ${ROUNDS} rounds, contenders in rotating order (rows in run order)`,
      "",
      "| round | contender | backlog drained (/s) | ratio to ours (same round) | arrivals achieved (/s) | queue lag at that rate |",
      "| ---: | --- | ---: | ---: | ---: | --- |",
      ...runs.map(
        ({ round, name, outcome }) =>
          `| ${round} | ${name} | ${fmt(outcome.drained)} | ${(outcome.drained / oursIn(round).outcome.drained).toFixed(2)} | ${fmt(outcome.arrival.rate)} | ${summary(outcome.lags)} |`,
      ),
      "",
    ].join("\n"),
  );

  await queue.stop();
  await database.close();
  await scratch.drop();
}

await main();
