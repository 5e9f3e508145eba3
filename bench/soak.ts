/**
 * Soak: mixed traffic for `--minutes` on 2 `serenity serve` + 2 `serenity worker`
 * processes and one `serenity simulator` (a metered parent of 200 projects / 20,000 prompts, 20 ms
 * latency) with a random one-shot fault every few seconds (500, 504, 504 after commit, a dropped
 * connection on a random write). Reports every 5xx by the registry code in its body: 5xx of our own
 * making (500s, no answer, or a 5xx without a known code), Serenity's own 503s in a column of their
 * own (a busy brand or workspace, no upstream budget, the database away: refusals it chose), and
 * the upstream-caused ones (an upstream or generator failure, a settle wait that ran out) apart;
 * orphans upstream at the end (after the workers' upstream reconciler, period
 * 5 s / grace 10 s, has had its turn), p50 / p99 per route, RSS and file descriptors of each
 * process after warm-up and at the end.
 *
 *   npx tsx bench/soak.ts [--minutes 2] [--concurrency 6] [--json out.json] [--no-limits]
 *
 * The simulator enforces Semrush's request limits (10 / s and 10 in flight per account and
 * endpoint group) unless `--no-limits`; Serenity's processes run with their default budget.
 *
 * Uses DATABASE_URL's server when set (a scratch database is created and dropped), else an
 * embedded PostgreSQL in a temporary directory. Linux only (/proc for RSS and fds).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { sql } from "drizzle-orm";

import { gatewayAllocationUpstream } from "../src/allocation/gatewayAllocationUpstream.ts";
import { signDevToken } from "../src/auth/tokenVerifier.ts";
import { freePort } from "../src/config/freePort.ts";
import { openDatabase } from "../src/db/database.ts";
import { systemClock } from "../src/domain/clock.ts";
import { ERROR_REGISTRY } from "../src/domain/errors.ts";
import { createGatewayClient } from "../src/gateway/gatewayClient.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { observeUpstream } from "../src/operations/observeUpstream.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "2" },
    concurrency: { type: "string", default: "6" },
    json: { type: "string" },
    /** The simulator without Semrush's request limits (10 / s, 10 in flight): the old soak. */
    "no-limits": { type: "boolean", default: false },
  },
});
const MINUTES = Number(args.minutes);
const CONCURRENCY = Number(args.concurrency);
const BIN = path.resolve(import.meta.dirname, "../bin/serenity.mjs");
const SECRET = randomBytes(32).toString("hex");
const OPERATOR_TOKEN = "soak-operator-token";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Proc {
  name: string;
  child: ChildProcess;
}

function spawnSerenity(name: string, argv: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [BIN, ...argv], {
    // Several workers on one host: any free probe port each (the default 8081 would clash).
    env: { ...process.env, LOG_LEVEL: "warn", SERENITY_WORKER_PORT: "0", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return { name, child };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`soak: ${what} not reached`);
    await sleep(200);
  }
}

function sample(proc: Proc): { rssMb: number; fds: number } {
  const pid = proc.child.pid!;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(rssKb / 102.4) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * The registry codes whose 5xx is caused upstream (the Semrush gateway or the prompt generator
 * failed, or did not settle in time). Every other 5xx code is Serenity's own answer: its 503s
 * (brandBusy, workspaceBusy, upstreamBusy, configurationError, databaseUnavailable) are counted
 * apart from the 500s, and a 5xx with no known code counts as our own making.
 */
const UPSTREAM_CAUSED_CODES = new Set<string>([
  "serenityUpstreamError",
  "subworkspaceCreationFailed",
  "generatorUnavailable",
  "subworkspaceCreationTimeout",
  "generationTimeout",
]);

type Attribution = "own" | "own503" | "upstream" | "none";

/** Which column a response belongs to, by its status and the registry code in its body. */
function attribute(status: number, text: string): { column: Attribution; code: string } {
  if (status !== 0 && status < 500) return { column: "none", code: "" };
  let code = "";
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") code = body.error;
  } catch {
    // not JSON: no registry code
  }
  const known = (ERROR_REGISTRY as Record<string, { status: number }>)[code];
  if (status === 0 || !known || known.status !== status) return { column: "own", code: code || `${status}` };
  if (UPSTREAM_CAUSED_CODES.has(code)) return { column: "upstream", code };
  if (status === 503) return { column: "own503", code };
  return { column: "own", code };
}

const FAULT_PATHS = [
  { method: "POST", pathPattern: "/workspaces/[^/]+/child$" },
  { method: "POST", pathPattern: "/workspaces/[^/]+/projects$" },
  { method: "POST", pathPattern: "/resources/transfer$" },
  { method: "POST", pathPattern: "/publish$" },
  { method: "POST", pathPattern: "/aio/prompts$" },
  { method: "DELETE", pathPattern: "/projects/[^/]+$" },
];
const FAULT_ACTIONS = [{ status: 500 }, { status: 504 }, { afterCommit504: true }, { dropConnection: true }];
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

async function main() {
  const scratch = await scratchDatabase("soak");
  const procs: Proc[] = [];
  try {
    const simPort = await freePort();
    const sim = `http://127.0.0.1:${simPort}`;
    procs.push(
      spawnSerenity(
        "simulator",
        [
          "simulator",
          "--port",
          String(simPort),
          "--seed",
          "empty",
          "--settings",
          JSON.stringify({
            latencyMs: 20,
            settleReads: 1,
            // Semrush's published request limits per (account, endpoint group), unless --no-limits.
            ...(args["no-limits"] ? {} : { rateLimit: { perSecond: 10, concurrent: 10 } }),
          }),
        ],
        {},
      ),
    );
    await until("the simulator", async () => (await fetch(`${sim}/__sim/settings`)).ok);
    const parent = (await (
      await fetch(`${sim}/__sim/parents`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Soak parent", projects: 200, prompts: 20_000, metered: true }),
      })
    ).json()) as { id: string };

    const shared = {
      DATABASE_URL: scratch.url,
      SEMRUSH_PROJECTS_BASE_URL: sim,
      SEMRUSH_USERS_BASE_URL: sim,
      SERENITY_AUTH_SECRET: SECRET,
      SERENITY_CREDENTIAL_KEY: randomBytes(32).toString("base64"),
      SERENITY_DYNAMIC_ALLOCATION: "true",
      SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "5000",
      SERENITY_UPSTREAM_RECONCILE_GRACE_MS: "10000",
      SERENITY_UPSTREAM_TOKEN: OPERATOR_TOKEN,
      // A scratch database: the first process to start migrates it (docs/decisions/0038).
      SERENITY_MIGRATE_ON_START: "true",
    };
    const apis: string[] = [];
    for (const index of [1, 2]) {
      const port = await freePort();
      const dataDir = mkdtempSync(path.join(os.tmpdir(), "serenity-soak-"));
      procs.push(
        spawnSerenity(`serve-${index}`, ["serve"], {
          ...shared,
          PORT: String(port),
          SERENITY_DATA_DIR: dataDir,
        }),
      );
      apis.push(`http://127.0.0.1:${port}`);
    }
    for (const index of [1, 2]) {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), "serenity-soak-"));
      procs.push(spawnSerenity(`worker-${index}`, ["worker"], { ...shared, SERENITY_DATA_DIR: dataDir }));
    }
    for (const api of apis) await until(`${api}/readyz`, async () => (await fetch(`${api}/readyz`)).ok);

    const admin = await signDevToken(SECRET, { sub: "soak-admin", admin: true, ttlSeconds: 7200 });
    const org = (await (
      await fetch(`${apis[0]}/v2/orgs`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Soak org", parentWorkspaceId: parent.id }),
      })
    ).json()) as { id: string };
    const token = await signDevToken(SECRET, { sub: "soak-user", orgs: [org.id], ttlSeconds: 7200 });

    const latencies = new Map<string, number[]>();
    const statuses = new Map<number, number>();
    const own5xx: string[] = [];
    /** Serenity's own 503s, by registry code. */
    const own503 = new Map<string, number>();
    /** Upstream-caused 5xx (by registry code): the route, the answer, and the fault injected last. */
    const upstream5xx: string[] = [];
    const upstreamByCode = new Map<string, number>();
    let lastFault = "none yet";
    let requests = 0;
    const brands: string[] = [];
    const call = async (route: string, method: string, url: string, body?: unknown) => {
      const api = pick(apis);
      const started = performance.now();
      let status = 0;
      let text = "";
      try {
        const response = await fetch(`${api}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        text = String(error);
      }
      const key = `${method} ${route}`;
      latencies.set(key, [...(latencies.get(key) ?? []), performance.now() - started]);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      requests += 1;
      const { column, code } = attribute(status, text);
      if (column === "own") own5xx.push(`${key} → ${status} ${text.slice(0, 200)}`);
      else if (column === "own503") own503.set(code, (own503.get(code) ?? 0) + 1);
      else if (column === "upstream") {
        upstreamByCode.set(code, (upstreamByCode.get(code) ?? 0) + 1);
        upstream5xx.push(`${key} → ${status} ${text.slice(0, 160)} (last fault: ${lastFault})`);
      }
      return { status, json: () => JSON.parse(text) as Record<string, unknown> };
    };

    const base = `/v2/orgs/${org.id}/brands`;
    const markets = [
      { market: "US", languageCode: "en", geo: 2840 },
      { market: "FR", languageCode: "fr", geo: 2250 },
      { market: "DE", languageCode: "de", geo: 2276 },
    ];
    let named = 0;
    const operations: [number, () => Promise<unknown>][] = [
      [
        3,
        async () => {
          const answer = await call("/brands", "POST", base, {
            name: `Soak ${++named}`,
            domain: `soak-${named}.example`,
            semrushMarket: { market: "US", languageCode: "en" },
            async: true,
          });
          if (answer.status === 202) brands.push(String(answer.json().id));
        },
      ],
      [
        2,
        async () => {
          if (brands.length === 0) return;
          const market = pick(markets);
          await call("/brands/:id/serenity/markets", "POST", `${base}/${pick(brands)}/serenity/markets`, {
            market: market.market,
            languageCode: market.languageCode,
            async: Math.random() < 0.5,
          });
        },
      ],
      [
        4,
        async () => {
          if (brands.length === 0) return;
          const texts = Array.from(
            { length: 3 },
            () => `What is the best soak ${Math.floor(Math.random() * 1e6)}?`,
          );
          await call("/brands/:id/serenity/prompts", "POST", `${base}/${pick(brands)}/serenity/prompts`, {
            items: texts.map((text) => ({ text, geoTargetId: 2840, languageCode: "en" })),
          });
        },
      ],
      [
        4,
        async () => {
          if (brands.length === 0) return;
          await call(
            "/brands/:id/serenity/prompts",
            "GET",
            `${base}/${pick(brands)}/serenity/prompts?geoTargetId=2840&languageCode=en`,
          );
        },
      ],
      [
        1,
        async () => {
          if (brands.length === 0) return;
          const market = pick(markets.slice(1));
          await call(
            "/brands/:id/serenity/markets/:geo/:lang",
            "DELETE",
            `${base}/${pick(brands)}/serenity/markets/${market.geo}/${market.languageCode}`,
          );
        },
      ],
      [
        1,
        async () => {
          if (brands.length < 4) return;
          const brandId = brands.splice(Math.floor(Math.random() * brands.length), 1)[0]!;
          await call("/brands/:id/serenity/deactivate", "POST", `${base}/${brandId}/serenity/deactivate`);
        },
      ],
      [3, () => call("/brands/:id", "GET", brands.length ? `${base}/${pick(brands)}` : base)],
      [2, () => call("/serenity/resources", "GET", `/v2/orgs/${org.id}/serenity/resources`)],
      [
        2,
        () =>
          call(
            "/brands/:id/serenity/markets",
            "GET",
            brands.length ? `${base}/${pick(brands)}/serenity/markets` : base,
          ),
      ],
    ];
    const totalWeight = operations.reduce((sum, [weight]) => sum + weight, 0);
    const nextOperation = () => {
      let roll = Math.random() * totalWeight;
      for (const [weight, operation] of operations) {
        roll -= weight;
        if (roll < 0) return operation;
      }
      return operations[0]![1];
    };

    // Warm-up, then the first resource sample of every process.
    const warmupEnd = Date.now() + 15_000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < warmupEnd) await nextOperation()();
      }),
    );
    const start = Object.fromEntries(procs.map((proc) => [proc.name, sample(proc)]));
    latencies.clear();
    statuses.clear();
    own5xx.length = 0;
    own503.clear();
    upstream5xx.length = 0;
    upstreamByCode.clear();
    requests = 0;

    const end = Date.now() + MINUTES * 60_000;
    let faults = 0;
    const injector = (async () => {
      while (Date.now() < end) {
        await sleep(3_000 + Math.random() * 4_000);
        const fault = { match: pick(FAULT_PATHS), action: pick(FAULT_ACTIONS), times: 1 };
        await fetch(`${sim}/__sim/faults`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(fault),
        }).catch(() => {});
        lastFault = `${fault.match.method} ${fault.match.pathPattern} ${JSON.stringify(fault.action)}`;
        faults += 1;
      }
    })();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end) await nextOperation()();
      }),
    );
    await injector;
    await fetch(`${sim}/__sim/faults`, { method: "DELETE" });

    // Drain: every job ends, then the workers' reconciler has its turn (period 5 s, grace 10 s).
    const database = openDatabase(scratch.url, { max: 2 });
    await until(
      "every job terminal",
      async () =>
        (
          await database.db.execute<{ n: number }>(
            sql`select count(*)::int as n from jobs where status = 'IN_PROGRESS'`,
          )
        ).rows[0]!.n === 0,
      600_000,
    );
    const logger = createLogger({ level: "silent" });
    const gateway = createGatewayClient({
      projectsBaseUrl: sim,
      usersBaseUrl: sim,
      events: new EventBus(),
      logger,
      clock: systemClock,
    });
    const orphans = async () => {
      const observation = await observeUpstream(
        {
          db: database.db,
          clock: systemClock,
          events: new EventBus(),
          logger,
          gateway,
          upstream: gatewayAllocationUpstream(gateway),
        },
        { id: org.id, parentWorkspaceId: parent.id },
        OPERATOR_TOKEN,
      );
      return (
        observation.subWorkspaces.filter((workspace) => workspace.state === "orphan").length +
        observation.projects.length
      );
    };
    const orphansAtDrain = await orphans();
    await until("zero orphans", async () => (await orphans()) === 0, 120_000).catch(() => {});
    const orphansAtEnd = await orphans();
    const finish = Object.fromEntries(procs.map((proc) => [proc.name, sample(proc)]));
    await gateway.close();
    await database.close();

    const routes = [...latencies.entries()].sort().map(([route, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return {
        route,
        n: values.length,
        p50: Math.round(percentile(sorted, 50)),
        p99: Math.round(percentile(sorted, 99)),
      };
    });
    const processes = procs.map((proc) => ({
      name: proc.name,
      start: start[proc.name]!,
      end: finish[proc.name]!,
      rssGrowthPct: Math.round((finish[proc.name]!.rssMb / start[proc.name]!.rssMb - 1) * 1000) / 10,
      fdGrowthPct: Math.round((finish[proc.name]!.fds / start[proc.name]!.fds - 1) * 1000) / 10,
    }));
    const result = {
      minutes: MINUTES,
      concurrency: CONCURRENCY,
      requests,
      faults,
      statuses: Object.fromEntries([...statuses.entries()].sort((a, b) => a[0] - b[0])),
      own5xx: own5xx.length,
      own5xxSamples: own5xx.slice(0, 5),
      own503: Object.fromEntries([...own503.entries()].sort()),
      upstream5xx: Object.fromEntries([...upstreamByCode.entries()].sort()),
      upstream5xxSamples: upstream5xx.slice(0, 10),
      orphansAtDrain,
      orphansAtEnd,
      routes,
      processes,
    };
    console.log(
      `soak: ${MINUTES} min, ${requests} requests, ${faults} one-shot faults, concurrency ${CONCURRENCY}`,
    );
    console.log(`statuses: ${JSON.stringify(result.statuses)}`);
    console.log(
      `5xx of our own making: ${own5xx.length}; our own 503s: ${JSON.stringify(result.own503)}; upstream-caused 5xx: ${JSON.stringify(result.upstream5xx)}`,
    );
    for (const sampleLine of result.own5xxSamples) console.log(`  ${sampleLine}`);
    for (const sampleLine of result.upstream5xxSamples) console.log(`  upstream-caused: ${sampleLine}`);
    console.log(`orphans after the drain: ${orphansAtDrain}; after the reconciler's turn: ${orphansAtEnd}`);
    console.log("route                                              n     p50 ms  p99 ms");
    for (const route of routes)
      console.log(
        `${route.route.padEnd(50)} ${String(route.n).padStart(5)} ${String(route.p50).padStart(8)} ${String(route.p99).padStart(7)}`,
      );
    console.log("process     rss MB start→end (growth)   fds start→end (growth)");
    for (const proc of processes)
      console.log(
        `${proc.name.padEnd(11)} ${proc.start.rssMb}→${proc.end.rssMb} (${proc.rssGrowthPct} %)   ${proc.start.fds}→${proc.end.fds} (${proc.fdGrowthPct} %)`,
      );
    if (args.json) writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    for (const proc of procs) proc.child.kill("SIGTERM");
    await sleep(3_000);
    for (const proc of procs) if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
    await scratch.drop();
  }
}

await main();
