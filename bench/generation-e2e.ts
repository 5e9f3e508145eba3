/**
 * Generation end to end (spec/generation.md §9): a market created with `generatePrompts: true`
 * until its prompts are live (the generation job COMPLETED), with the simulator answering at 0 and
 * 20 ms per call; and the upstream calls one generation job makes, against §9's target (one read
 * of existing texts, one create per ≤ 100 texts per tag set, one publish, plus the allocation
 * guard's 1–2). Self-contained: embedded PostgreSQL (or DATABASE_URL's server), the built-in
 * simulator on a metered parent with just-in-time allocation on, the builtin generator, the real
 * job worker.
 *
 *   npx tsx bench/generation-e2e.ts [--runs 3]
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import { eq } from "drizzle-orm";

import type { Principal } from "../src/auth/principal.ts";
import { signDevToken } from "../src/auth/tokenVerifier.ts";
import { openDatabase } from "../src/db/database.ts";
import { jobs } from "../src/db/schema.ts";
import { systemClock } from "../src/domain/clock.ts";
import { createGatewayClient } from "../src/gateway/gatewayClient.ts";
import { createPgBossQueue } from "../src/jobs/queue.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createServices } from "../src/runtime/services.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const RUNS = Number(args.runs);
const LATENCIES_MS = [0, 20];
const logger = createLogger({ level: process.env.BENCH_LOG_LEVEL ?? "error" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

process.env.SERENITY_ASYNC_PROMPT_GEN = "true";
process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
process.env.SERENITY_PROMPT_GENERATOR = "builtin";

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One upstream call as the simulator logged it, named after what it is for. */
function kindOf(call: { method: string; path: string }): string {
  const { method, path } = call;
  if (path.endsWith("/aio/prompts/by_tags")) return "read existing texts";
  if (method === "POST" && path.endsWith("/aio/prompts")) return "create prompts";
  if (path.endsWith("/publish")) return "publish";
  if (path.includes("/tags")) return method === "GET" ? "read tags" : "create tags";
  if (path.endsWith("/ai_models")) return "read models";
  if (path.includes("/resources")) return "guard: resources read";
  if (path.includes("/transfer") || path.includes("/allocate")) return "guard: transfer";
  return `${method} ${path.replace(/[0-9a-f-]{36}/g, "{id}")}`;
}

async function main() {
  const scratch = await scratchDatabase("generation");
  const database = openDatabase(scratch.url, { max: 20 });
  const started = await startSimulator({ seed: "gold", controls: true });
  const sim = (route: string, body?: unknown, method = "POST") =>
    fetch(`${started.url}/__sim${route}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  // Room for every run's project and prompts: the pool is not what is measured here.
  await sim("/quota", { workspaceId: GOLD_PARENT_WORKSPACE_ID, projects: 200, prompts: 100_000 });

  const events = new EventBus();
  const gateway = createGatewayClient({
    projectsBaseUrl: started.url,
    usersBaseUrl: started.url,
    events,
    logger,
    clock: systemClock,
  });
  const queue = createPgBossQueue({ pool: database.pool, logger, name: "bench-generation" });
  const services = createServices({
    db: database.db,
    clock: systemClock,
    events,
    logger,
    credentialKey: randomBytes(32),
    gateway,
    jobQueue: queue,
  });
  await queue.start();
  const worker = new JobWorker(
    {
      db: database.db,
      clock: systemClock,
      logger,
      events,
      registry: services.jobs.registry,
      queue,
      credentials: services.jobs.credentials,
    },
    { listen: true, reconcileIntervalMs: 0, idleWaitMs: 20, concurrency: 4 },
  );
  let generatorCalls = 0;
  events.on("generation.call", () => (generatorCalls += 1));

  const admin: Principal = { sub: "bench", orgIds: [], isAdmin: true, bearer: "unused" };
  const org = await services.orgs.create(admin, {
    name: "Bench org",
    parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
  });
  const bearer = await signDevToken("bench-secret-long-enough-0123456789-abcdef", {
    sub: "bench-user",
    orgs: [org.id],
  });
  const user: Principal = { sub: "bench-user", orgIds: [org.id], isAdmin: false, bearer };
  let brandIndex = 0;

  /** A brand with its FR market and generated prompts: the request's time, and the job's id. */
  async function createWithGeneration(): Promise<{ requestMs: number; jobId: string; startedAt: number }> {
    const startedAt = performance.now();
    const outcome = await services.brandLifecycle.createBrand(
      user,
      org.id,
      {
        name: `Maison ${++brandIndex}`,
        domain: `maison${brandIndex}.example`,
        semrushMarket: { market: "FR", languageCode: "fr", generatePrompts: true },
      },
      { requestId: undefined },
    );
    if (!("done" in outcome) || !outcome.promptGeneration) throw new Error("expected a generation handle");
    return { requestMs: performance.now() - startedAt, jobId: outcome.promptGeneration.jobId, startedAt };
  }

  async function completed(jobId: string): Promise<{ promptCount: number }> {
    for (const deadline = performance.now() + 120_000; performance.now() < deadline; await sleep(5)) {
      const [row] = await database.db.select().from(jobs).where(eq(jobs.id, jobId));
      if (row?.status === "COMPLETED") return row.result as { promptCount: number };
      if (row?.status === "FAILED") throw new Error(`generation ${jobId} failed: ${row.error?.code}`);
    }
    throw new Error("generation not done within 120 s");
  }

  // 1. Upstream calls of one job, isolated: the worker is driven by hand after the create.
  await worker.heartbeat();
  const counted = await createWithGeneration();
  await sim("/calls", undefined, "DELETE");
  const generatorCallsBefore = generatorCalls;
  while ((await worker.pollOnce()) > 0);
  const { promptCount } = await completed(counted.jobId);
  // Counted, not assumed: every call the generator received while this one job ran.
  const jobGeneratorCalls = generatorCalls - generatorCallsBefore;
  const calls = (await (await fetch(`${started.url}/__sim/calls`)).json()) as {
    method: string;
    path: string;
  }[];
  const byKind = new Map<string, number>();
  for (const call of calls) byKind.set(kindOf(call), (byKind.get(kindOf(call)) ?? 0) + 1);

  // 2. End to end with the real worker running, at each simulator latency.
  await worker.start();
  const rows: string[] = [];
  for (const latencyMs of LATENCIES_MS) {
    await sim("/settings", { latencyMs });
    const requests: number[] = [];
    const endToEnd: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { requestMs, jobId, startedAt } = await createWithGeneration();
      await completed(jobId);
      requests.push(requestMs);
      endToEnd.push(performance.now() - startedAt);
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    rows.push(
      `| ${latencyMs} ms | ${RUNS} | ${mean(requests).toFixed(0)} ms | ${mean(endToEnd).toFixed(0)} ms | ${percentile(endToEnd, 95).toFixed(0)} ms | ${(mean(endToEnd) - mean(requests)).toFixed(0)} ms |`,
    );
  }
  await sim("/settings", { latencyMs: 0 });

  console.log(
    `\nUpstream calls of one generation job (${promptCount} prompts written, generator calls: ${jobGeneratorCalls}):\n`,
  );
  console.log("| call | count |");
  console.log("| --- | --- |");
  for (const [kind, count] of [...byKind].sort()) console.log(`| ${kind} | ${count} |`);
  console.log(`| **total** | **${calls.length}** |`);
  console.log(
    `\nMarket create with generation → prompts live (builtin generator, FR, 50 prompts asked; ${generatorCalls} generator calls in all):\n`,
  );
  console.log(
    "| simulator latency | runs | create request (mean) | to COMPLETED (mean) | p95 | job after the request |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const row of rows) console.log(row);

  await worker.stop();
  await gateway.close();
  await started.close();
  await database.close();
  await scratch.drop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
