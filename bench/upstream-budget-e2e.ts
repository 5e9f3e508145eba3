/**
 * The end-to-end budget benchmark: Serenity within Semrush's request limits, side by side in ONE
 * run, **unpaced** (every Serenity process with SERENITY_UPSTREAM_RATE_PER_SECOND=0 and
 * SERENITY_UPSTREAM_CONCURRENT=0: no budget) vs **paced** (the defaults, 10 / s and 10 in flight per
 * account and endpoint group, shared through PostgreSQL, docs/decisions/0019).
 *
 *   npx tsx bench/upstream-budget-e2e.ts [--brands 30] [--prompts 5] [--views 50] [--json out.json]
 *                                        [--modes unpaced,paced] [--rounds 2] [--skip-views]
 *
 * Every mode runs once per round, the order rotating round by round (round 1 unpaced then paced,
 * round 2 paced then unpaced), so neither always runs first on a machine whose load moves; the
 * table has one column per run, in run order, each with the load average at its start.
 *
 * A third mode, **unseeded** (paced, with SERENITY_MARKET_TAG_SEEDING=false: a market's creation
 * does not make Serenity's tags, so its first prompt write does — the design before issue 36, item
 * 6), compares the write burst before and after: `--modes unseeded,paced`.
 *
 * One standalone `serenity simulator` process for the whole run, with Semrush's limits
 * (`rateLimit` 10 / 10) and 50 ms latency. Per mode: a fresh database (DATABASE_URL's server when
 * set, else an embedded PostgreSQL; created and dropped here), 2 `serenity serve` + 2 `serenity
 * worker` processes sharing SERENITY_AUTH_SECRET and SERENITY_CREDENTIAL_KEY (the budget's account
 * key derives from it), dynamic allocation and async provisioning on, one org on a fresh big parent
 * (400 projects / 40,000 prompts), one user's token (Serenity forwards it upstream: one account).
 * Requests alternate between the two APIs. Scenarios, each with its own hang guard:
 *
 * 1. onboarding burst: `--brands` async creates with a US market at once; poll every provisioning
 *    job (every 500 ms) until each is COMPLETED (brand and market ready) or FAILED. Wall time against the rate floor (the busiest endpoint group's
 *    admitted calls ÷ 10 / s, from the simulator's own count) and 429s as a share of all calls.
 * 2. write burst: one bulk write of `--prompts` prompts per ready brand, all at once, plus pool views
 *    at the same time; per-item outcome codes; afterwards every brand's prompt list is read back to
 *    check that what was reported written is there and nothing reported failed was written anyway.
 * 3. pool view: `--views` sequential views right after the burst (some entries past the max age:
 *    refreshed in the background meanwhile), then `--views` more once every entry is fresh: p50 /
 *    p99 and the upstream calls made meanwhile.
 * 4. per scenario, the peaks per (account, group) twice: as SENT, counted by an observer, a proxy
 *    between Serenity and the simulator (bench/support/upstreamObserver.ts) that sees every call,
 *    throttled ones too — the "≤ 10" check, which an unpaced run fails — and as ADMITTED, the
 *    simulator's own count, which its limiter keeps at 10 or under whatever is sent (not a check).
 *
 * Each process's output (warn and up) goes to a log file in a temporary directory (named at the end) so a crash or
 * an error line can be looked at; the run reports any process that exited before the end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { signDevToken } from "../src/auth/tokenVerifier.ts";
import { freePort } from "../src/config/freePort.ts";
import type { Call } from "../src/simulator/http/callLog.ts";
import { printTable } from "./allocation-support.ts";
import { roundRobinApi } from "./support/roundRobinApi.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";
import {
  type ObservedKey,
  startUpstreamObserver,
  type UpstreamObserver,
} from "./support/upstreamObserver.ts";

const { values: args } = parseArgs({
  options: {
    brands: { type: "string", default: "30" },
    prompts: { type: "string", default: "5" },
    views: { type: "string", default: "50" },
    json: { type: "string" },
    /** Which modes to run, comma-separated (both by default: the side-by-side comparison). */
    modes: { type: "string", default: "unpaced,paced" },
    /** Every mode runs once per round, the order rotating round by round. */
    rounds: { type: "string", default: "2" },
    /** Skip scenario 3 (the pool views): a shorter run when only the bursts are compared. */
    "skip-views": { type: "boolean", default: false },
  },
});
type Mode = "unpaced" | "paced" | "unseeded";
const MODES = args.modes.split(",").map((mode) => mode.trim()) as Mode[];
if (MODES.length === 0 || MODES.some((mode) => !["unpaced", "paced", "unseeded"].includes(mode)))
  throw new Error("--modes takes unpaced, paced, unseeded, comma-separated");
const BRANDS = Number(args.brands);
const PROMPTS = Number(args.prompts);
const VIEWS = Number(args.views);
const ROUNDS = Number(args.rounds);
const LIMIT = { perSecond: 10, concurrent: 10 };
const LATENCY_MS = 50;
const BIN = path.resolve(import.meta.dirname, "../bin/serenity.mjs");
const LOG_DIR = mkdtempSync(path.join(os.tmpdir(), "serenity-budget-e2e-"));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Everything this run started, so a SIGINT / SIGTERM still stops it and drops its databases. */
const cleanup: { procs: Proc[]; drops: (() => Promise<void>)[] } = { procs: [], drops: [] };
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void (async () => {
      await stopAll(cleanup.procs);
      for (const drop of cleanup.drops) await drop().catch(() => {});
      process.exit(130);
    })();
  });
}

interface Proc {
  name: string;
  child: ChildProcess;
  exited?: string;
}

function spawnSerenity(name: string, argv: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [BIN, ...argv], {
    // Several workers on one host: any free probe port each (the default 8081 would clash).
    env: { ...process.env, LOG_LEVEL: "warn", SERENITY_WORKER_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = createWriteStream(path.join(LOG_DIR, `${name}.log`));
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const proc: Proc = { name, child };
  cleanup.procs.push(proc);
  child.on("exit", (code, signal) => {
    proc.exited = `code ${code} signal ${signal}`;
  });
  return proc;
}

async function stopAll(procs: Proc[]): Promise<void> {
  for (const proc of procs) if (proc.child.exitCode === null) proc.child.kill("SIGTERM");
  const deadline = Date.now() + 5_000;
  while (
    Date.now() < deadline &&
    procs.some((proc) => proc.child.exitCode === null && !proc.child.signalCode)
  )
    await sleep(100);
  for (const proc of procs)
    if (proc.child.exitCode === null && !proc.child.signalCode) proc.child.kill("SIGKILL");
}

async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 250,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return true;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      console.error(`upstream-budget-e2e: ${what} not reached within ${timeoutMs / 1000} s`);
      return false;
    }
    await sleep(everyMs);
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface RateKey {
  bearer: string;
  group: string;
  started: number;
  throttled: number;
  perSecondPeak: number;
  inFlightPeak: number;
  inFlight: number;
}

/**
 * Admitted calls per endpoint group in each whole second since `since` (by the simulator's answer
 * time), so a run shows where a group sat idle: the rate floor assumes it is busy every second.
 */
function timeline(calls: Call[], since: number): Record<string, number[]> {
  const perGroup: Record<string, number[]> = {};
  for (const call of calls) {
    if (call.throttled || call.group === null) continue;
    const second = Math.max(0, Math.floor((Date.parse(call.at) - since) / 1000));
    const row = (perGroup[call.group] ??= []);
    while (row.length <= second) row.push(0);
    row[second] = row[second]! + 1;
  }
  return perGroup;
}

/** The simulator's own count since the last clear: per group and in all. */
function summarise(keys: RateKey[], calls: Call[], observed: ObservedKey[]) {
  const started = keys.reduce((sum, key) => sum + key.started, 0);
  const throttled = keys.reduce((sum, key) => sum + key.throttled, 0);
  const busiest = keys.reduce<RateKey | undefined>(
    (best, key) => (best === undefined || key.started > best.started ? key : best),
    undefined,
  );
  return {
    calls: started + throttled,
    admitted: started,
    throttled,
    throttledPct: started + throttled === 0 ? 0 : (100 * throttled) / (started + throttled),
    busiestGroup: busiest ? `${busiest.group} (${busiest.started})` : "-",
    floorS: busiest ? busiest.started / LIMIT.perSecond : 0,
    perSecondPeak: Math.max(0, ...keys.map((key) => key.perSecondPeak)),
    inFlightPeak: Math.max(0, ...keys.map((key) => key.inFlightPeak)),
    /** What Serenity sent, as the observer saw it (throttled calls included): these can exceed 10. */
    observedPerSecondPeak: Math.max(0, ...observed.map((key) => key.perSecondPeak)),
    observedInFlightPeak: Math.max(0, ...observed.map((key) => key.inFlightPeak)),
    observedSent: observed.reduce((sum, key) => sum + key.sent, 0),
    observed,
    keys: keys.map(({ bearer, group, started: s, throttled: t, perSecondPeak, inFlightPeak }) => ({
      bearer,
      group,
      started: s,
      throttled: t,
      perSecondPeak,
      inFlightPeak,
    })),
    /** Calls per route (ids folded), throttled ones counted apart. */
    byRoute: Object.fromEntries(
      [
        ...calls
          .reduce((counted, call) => {
            const route = `${call.method} ${call.path.replace(/\/[0-9a-zA-Z_-]*\d[0-9a-zA-Z_-]*/g, "/:id")}${call.throttled ? " (429)" : ""}`;
            return counted.set(route, (counted.get(route) ?? 0) + 1);
          }, new Map<string, number>())
          .entries(),
      ].sort((a, b) => b[1] - a[1]),
    ),
    /** Upstream answers other than 2xx and the limiter's 429s (a dropped connection is status 0). */
    otherFailures: calls
      .filter((call) => !call.throttled && (call.status === 0 || call.status >= 500))
      .map((call) => `${call.method} ${call.path} → ${call.status}`),
  };
}

async function runMode(mode: Mode, round: number, sim: string, observer: UpstreamObserver) {
  /** This run's name: databases, processes, brands and texts carry it (the simulator is shared). */
  const run = `${mode}-${round}`;
  const scratch = await scratchDatabase(`budget_e2e_${mode}_${round}`);
  cleanup.drops.push(() => scratch.drop());
  const procs: Proc[] = [];
  const secret = randomBytes(32).toString("hex");
  const control = async <T>(route: string, method = "GET", body?: unknown): Promise<T> => {
    const response = await fetch(`${sim}/__sim${route}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const resetCounts = async () => {
    observer.reset();
    await control("/rate", "DELETE");
    await control("/calls", "DELETE");
  };
  const counts = async () =>
    summarise(
      (await control<{ keys: RateKey[] }>("/rate")).keys,
      await control<Call[]>("/calls"),
      observer.report(),
    );
  try {
    const parent = await control<{ id: string }>("/parents", "POST", {
      title: `Budget e2e parent (${run})`,
      projects: 400,
      prompts: 40_000,
      metered: true,
    });
    const shared: Record<string, string> = {
      DATABASE_URL: scratch.url,
      // Through the observer: it counts what Serenity sends, before the simulator's limiter.
      SEMRUSH_PROJECTS_BASE_URL: observer.url,
      SEMRUSH_USERS_BASE_URL: observer.url,
      SERENITY_AUTH_SECRET: secret,
      SERENITY_CREDENTIAL_KEY: randomBytes(32).toString("base64"),
      SERENITY_DYNAMIC_ALLOCATION: "true",
      SERENITY_ASYNC_PROVISIONING: "true",
      // A scratch database: the first process to start migrates it (docs/decisions/0038).
      SERENITY_MIGRATE_ON_START: "true",
      ...(mode === "unpaced"
        ? { SERENITY_UPSTREAM_RATE_PER_SECOND: "0", SERENITY_UPSTREAM_CONCURRENT: "0" }
        : {}),
      ...(mode === "unseeded" ? { SERENITY_MARKET_TAG_SEEDING: "false" } : {}),
    };
    const apis: string[] = [];
    for (const index of [1, 2]) {
      const port = await freePort();
      procs.push(
        spawnSerenity(`${run}-serve-${index}`, ["serve"], {
          ...shared,
          PORT: String(port),
          SERENITY_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "serenity-budget-e2e-data-")),
        }),
      );
      apis.push(`http://127.0.0.1:${port}`);
    }
    for (const index of [1, 2]) {
      procs.push(
        spawnSerenity(`${run}-worker-${index}`, ["worker"], {
          ...shared,
          SERENITY_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "serenity-budget-e2e-data-")),
        }),
      );
    }
    for (const api of apis) {
      if (!(await until(`${api}/readyz`, async () => (await fetch(`${api}/readyz`)).ok, 120_000)))
        throw new Error(`${run}: an API did not start (logs in ${LOG_DIR})`);
    }

    const admin = await signDevToken(secret, { sub: "bench-admin", admin: true, ttlSeconds: 7200 });
    const orgAnswer = await fetch(`${apis[0]}/v2/orgs`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `Budget e2e org (${run})`, parentWorkspaceId: parent.id }),
    });
    const org = (await orgAnswer.json()) as { id: string };
    if (!orgAnswer.ok) throw new Error(`${run}: create org answered ${orgAnswer.status}`);
    const token = await signDevToken(secret, { sub: "bench-user", orgs: [org.id], ttlSeconds: 7200 });

    const send = roundRobinApi(apis);
    const call = (method: string, url: string, body?: unknown) => send(method, url, token, body);
    const base = `/v2/orgs/${org.id}/brands`;
    const tally = (values: (string | number)[]) => {
      const counted = new Map<string, number>();
      for (const value of values) counted.set(String(value), (counted.get(String(value)) ?? 0) + 1);
      return Object.fromEntries([...counted.entries()].sort());
    };

    // 1. Onboarding burst.
    await resetCounts();
    const onboardStart = performance.now();
    const onboardStartEpoch = Date.now();
    const creates = await Promise.all(
      Array.from({ length: BRANDS }, (_, i) =>
        call("POST", base, {
          name: `Budget ${run} ${i + 1}`,
          domain: `budget-${run}-${i + 1}.example`,
          semrushMarket: { market: "US", languageCode: "en" },
          async: true,
        }),
      ),
    );
    const createStatuses = tally(creates.map((answer) => answer.status));
    const createFailures = creates
      .filter((answer) => answer.status !== 202 && answer.status !== 201)
      .map((answer) => `${answer.status} ${answer.text.slice(0, 160)}`);
    // A create is done when its provisioning job (followed through its requeues and chain, the
    // market's project included) is COMPLETED or FAILED: the job route reads only the database.
    const accepted = creates.flatMap((answer) => {
      if (answer.status !== 202) return [];
      const body = JSON.parse(answer.text) as { id: string; name: string; jobId: string };
      return [{ id: body.id, name: body.name, jobId: body.jobId, status: "IN_PROGRESS", error: "" }];
    });
    const settled = await until(
      `${run}: every provisioning job completed or failed`,
      async () => {
        const open = accepted.filter((job) => job.status === "IN_PROGRESS");
        await Promise.all(
          open.map(async (job) => {
            const answer = await call("GET", `${base}/${job.id}/serenity/jobs/${job.jobId}`);
            if (answer.status !== 200) return;
            const body = JSON.parse(answer.text) as { status: string; error: unknown };
            job.status = body.status;
            job.error = JSON.stringify(body.error);
          }),
        );
        return accepted.every((job) => job.status !== "IN_PROGRESS");
      },
      // The hang guard grows with the burst: at the limit a brand costs ≈ 0.7 s of `projects` calls.
      Math.max(240_000, BRANDS * 3_000),
      500,
    );
    const onboardS = (performance.now() - onboardStart) / 1000;
    const onboardCounts = await counts();
    const onboardCalls = await control<Call[]>("/calls");
    const onboardTimeline = timeline(onboardCalls, onboardStartEpoch);
    const ready = accepted.filter((job) => job.status === "COMPLETED");
    const failedBrands = accepted
      .filter((job) => job.status === "FAILED")
      .map((job) => `${job.name}: ${job.error}`);
    const onboarding = {
      ready: ready.length,
      of: BRANDS,
      settled,
      createStatuses,
      createFailures: createFailures.slice(0, 5),
      failedBrands: failedBrands.slice(0, 5),
      wallS: onboardS,
      timeOverFloor: onboardCounts.floorS > 0 ? onboardS / onboardCounts.floorS : NaN,
      ...onboardCounts,
      timeline: onboardTimeline,
      /** Every upstream call of the burst (method, path, status, answer time): for --json readers. */
      upstreamCalls: onboardCalls.map((c) => ({ ...c, msFromStart: Date.parse(c.at) - onboardStartEpoch })),
    };

    // 2. Write burst: one bulk write per ready brand, all at once, plus pool views meanwhile.
    await resetCounts();
    const writeStart = performance.now();
    const texts = new Map<string, string[]>(
      ready.map((brand, b) => [
        brand.id,
        Array.from({ length: PROMPTS }, (_, i) => `What is the best ${run} budget choice ${b + 1}-${i + 1}?`),
      ]),
    );
    const viewsDuringBurst: { status: number; ms: number }[] = [];
    const [writes] = await Promise.all([
      Promise.all(
        ready.map((brand) =>
          call("POST", `${base}/${brand.id}/serenity/prompts`, {
            items: texts.get(brand.id)!.map((text) => ({ text, geoTargetId: 2840, languageCode: "en" })),
          }),
        ),
      ),
      Promise.all(
        Array.from({ length: 5 }, async (_, i) => {
          await sleep(i * 200);
          const answer = await call("GET", `/v2/orgs/${org.id}/serenity/resources`);
          viewsDuringBurst.push({ status: answer.status, ms: answer.ms });
        }),
      ),
    ]);
    const writeS = (performance.now() - writeStart) / 1000;
    const writeCounts = await counts();
    type Item = { index: number; status: number; error?: { code: string } };
    const itemOutcomes: string[] = [];
    const reportedWritten = new Map<string, Set<string>>();
    const reportedFailed = new Map<string, Set<string>>();
    ready.forEach((brand, b) => {
      const answer = writes[b]!;
      const mine = texts.get(brand.id)!;
      reportedWritten.set(brand.id, new Set());
      reportedFailed.set(brand.id, new Set());
      let items: Item[] | undefined;
      try {
        items = (JSON.parse(answer.text) as { items?: Item[] }).items;
      } catch {
        items = undefined;
      }
      if (!items) {
        // The whole request failed: every item counts with the request's answer.
        const code = (() => {
          try {
            return (JSON.parse(answer.text) as { error?: string }).error ?? "";
          } catch {
            return "";
          }
        })();
        for (const text of mine) {
          itemOutcomes.push(`${answer.status}${code ? ` ${code}` : ""} (request)`);
          reportedFailed.get(brand.id)!.add(text);
        }
        return;
      }
      for (const item of items) {
        itemOutcomes.push(`${item.status}${item.error ? ` ${item.error.code}` : ""}`);
        const text = mine[item.index]!;
        if (item.status === 201 || item.status === 200) reportedWritten.get(brand.id)!.add(text);
        else reportedFailed.get(brand.id)!.add(text);
      }
    });
    // Read back (outside the measured window): nothing reported written is missing from the live
    // (published) prompts, nothing reported failed went live anyway. A failed publish leaves its
    // creates as drafts, reported failed and retryable by design (a retry finds them and publishes):
    // those are counted apart.
    let missing = 0;
    let writtenDespiteFailure = 0;
    let draftsLeft = 0;
    let readBackErrors = 0;
    const listTexts = async (brandId: string, drafts: boolean) => {
      const answer = await call(
        "GET",
        `${base}/${brandId}/serenity/prompts?geoTargetId=2840&languageCode=en&includeDrafts=${drafts}&limit=100`,
      );
      if (answer.status !== 200) return undefined;
      return new Set(
        (JSON.parse(answer.text) as { items: { text: string }[] }).items.map((item) => item.text),
      );
    };
    for (const brand of ready) {
      const [live, all] = [await listTexts(brand.id, false), await listTexts(brand.id, true)];
      if (!live || !all) {
        readBackErrors += 1;
        continue;
      }
      for (const text of reportedWritten.get(brand.id)!) if (!live.has(text)) missing += 1;
      for (const text of reportedFailed.get(brand.id)!) {
        if (live.has(text)) writtenDespiteFailure += 1;
        else if (all.has(text)) draftsLeft += 1;
      }
    }
    const writeBurst = {
      brands: ready.length,
      prompts: ready.length * PROMPTS,
      written: [...reportedWritten.values()].reduce((sum, set) => sum + set.size, 0),
      requestStatuses: tally(writes.map((answer) => answer.status)),
      itemOutcomes: tally(itemOutcomes),
      item502: itemOutcomes.filter((outcome) => outcome.startsWith("502")).length,
      itemUpstreamBusy: itemOutcomes.filter((outcome) => outcome.includes("upstreamBusy")).length,
      missing,
      writtenDespiteFailure,
      draftsLeft,
      readBackErrors,
      wallS: writeS,
      viewsDuringBurst: {
        statuses: tally(viewsDuringBurst.map((view) => view.status)),
        p50Ms: percentile(
          viewsDuringBurst.map((view) => view.ms),
          50,
        ),
        maxMs: Math.max(...viewsDuringBurst.map((view) => view.ms)),
      },
      ...writeCounts,
      callsPerWrite: ready.length === 0 ? NaN : writeCounts.admitted / ready.length,
    };

    // 2b. A second write burst into the same markets (a market's later writes: its own calls only).
    await resetCounts();
    const secondStart = performance.now();
    const seconds = await Promise.all(
      ready.map((brand, b) =>
        call("POST", `${base}/${brand.id}/serenity/prompts`, {
          items: Array.from({ length: PROMPTS }, (_, i) => ({
            text: `What else is a good ${run} budget choice ${b + 1}-${i + 1}?`,
            geoTargetId: 2840,
            languageCode: "en",
          })),
        }),
      ),
    );
    const secondCounts = await counts();
    const secondItems = seconds.flatMap((answer) => {
      try {
        return (JSON.parse(answer.text) as { items?: Item[] }).items ?? [];
      } catch {
        return [];
      }
    });
    const secondBurst = {
      prompts: ready.length * PROMPTS,
      written: secondItems.filter((item) => item.status === 201 || item.status === 200).length,
      itemUpstreamBusy: secondItems.filter((item) => item.error?.code === "upstreamBusy").length,
      wallS: (performance.now() - secondStart) / 1000,
      callsPerWrite: ready.length === 0 ? NaN : secondCounts.admitted / ready.length,
      ...secondCounts,
    };

    if (args["skip-views"]) {
      const crashed = procs.filter((proc) => proc.exited).map((proc) => `${proc.name}: ${proc.exited}`);
      return {
        mode,
        onboarding,
        writeBurst,
        secondBurst,
        afterBurst: undefined,
        poolView: undefined,
        crashed,
      };
    }

    // 3. Pool views: `--views` sequential views right after the burst (entries the burst did not
    // touch may be past SERENITY_POOL_VIEW_MAX_AGE_MS: served at once, refreshed in the background),
    // then, once every entry's asOf is younger than 20 s (fresh for the whole series), `--views` more.
    const view = () => call("GET", `/v2/orgs/${org.id}/serenity/resources`);
    const viewSeries = async () => {
      await resetCounts();
      const viewMs: number[] = [];
      const viewStatuses: number[] = [];
      const viewDeadline = Date.now() + 60_000;
      for (let i = 0; i < VIEWS && Date.now() < viewDeadline; i += 1) {
        const answer = await view();
        viewMs.push(answer.ms);
        viewStatuses.push(answer.status);
      }
      return {
        views: viewMs.length,
        statuses: tally(viewStatuses),
        p50Ms: percentile(viewMs, 50),
        p99Ms: percentile(viewMs, 99),
        ...(await counts()),
      };
    };
    const afterBurst = await viewSeries();
    let oldestS = NaN;
    let meteringS = NaN;
    const fresh = await until(
      `${run}: every pool-view entry younger than 20 s`,
      async () => {
        const answer = await view();
        if (answer.status !== 200) return false;
        const body = JSON.parse(answer.text) as {
          sampledAt: string;
          metering?: { asOf: string | null };
        };
        const sampledAt = Date.parse(body.sampledAt);
        // The entries' ages only: the parent's metering has an asOf of its own (read when the
        // org was created, not by a resources read), which no refresh renews.
        meteringS = body.metering?.asOf ? (sampledAt - Date.parse(body.metering.asOf)) / 1000 : NaN;
        delete body.metering;
        const asOfs = [...JSON.stringify(body).matchAll(/"asOf":(null|"[^"]+")/g)].map((match) =>
          match[1] === "null" ? NaN : Date.parse(JSON.parse(match[1]!) as string),
        );
        oldestS = Math.max(...asOfs.map((asOf) => (sampledAt - asOf) / 1000));
        return Number.isFinite(oldestS) && oldestS < 20;
      },
      60_000,
      1_000,
    );
    const poolView = { ...(await viewSeries()), fresh, oldestEntryS: oldestS, meteringAgeS: meteringS };

    const crashed = procs.filter((proc) => proc.exited).map((proc) => `${proc.name}: ${proc.exited}`);
    return { mode, onboarding, writeBurst, secondBurst, afterBurst, poolView, crashed };
  } finally {
    await stopAll(procs);
    await scratch.drop();
  }
}

type Result = Awaited<ReturnType<typeof runMode>>;
type Counts = ReturnType<typeof summarise>;

/** The limit the observer's peaks are checked against: Semrush's, the simulator's here. */
const within = (perSecond: number, inFlight: number) =>
  perSecond <= LIMIT.perSecond && inFlight <= LIMIT.concurrent ? "yes" : "NO";

async function main() {
  const simPort = await freePort();
  const sim = `http://127.0.0.1:${simPort}`;
  const simulator = spawnSerenity(
    "simulator",
    [
      "simulator",
      "--port",
      String(simPort),
      "--seed",
      "empty",
      "--settings",
      JSON.stringify({ latencyMs: LATENCY_MS, rateLimit: LIMIT }),
    ],
    {},
  );
  const observer = await startUpstreamObserver(sim);
  try {
    if (!(await until("the simulator", async () => (await fetch(`${sim}/__sim/settings`)).ok, 60_000)))
      throw new Error("the simulator did not start");
    const load = os.loadavg().map((value) => value.toFixed(2));
    const started = performance.now();
    const results: (Result & { round: number; load: string })[] = [];
    // Every mode once per round, the order rotating round by round: no mode always runs first.
    for (let round = 1; round <= ROUNDS; round += 1) {
      const shift = (round - 1) % MODES.length;
      for (const mode of [...MODES.slice(shift), ...MODES.slice(0, shift)]) {
        const runLoad = os.loadavg()[0]!.toFixed(1);
        results.push({ ...(await runMode(mode, round, sim, observer)), round, load: runLoad });
      }
    }
    const totalS = (performance.now() - started) / 1000;
    if (args.json) writeFileSync(args.json, `${JSON.stringify({ load, totalS, results }, null, 2)}\n`);
    for (const result of results) {
      console.log(
        `\n${result.mode} (round ${result.round}): onboarding per second and group (admitted calls):`,
      );
      for (const [group, row] of Object.entries(result.onboarding.timeline))
        console.log(`  ${group.padEnd(15)} ${row.map((n) => String(n).padStart(2)).join(" ")}`);
    }

    const n = (value: number | undefined, digits = 1) =>
      value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : "-";
    const pct = (value: number) => `${value.toFixed(1)} %`;
    const peaks = (scenario: Counts | undefined) =>
      scenario
        ? `${scenario.observedPerSecondPeak}, ${scenario.observedInFlightPeak} (${within(scenario.observedPerSecondPeak, scenario.observedInFlightPeak)})`
        : "-";
    const simPeaks = (scenario: Counts | undefined) =>
      scenario ? `${scenario.perSecondPeak}, ${scenario.inFlightPeak}` : "-";
    console.log(
      `\nupstream-budget-e2e: simulator ${LIMIT.perSecond} / s, ${LIMIT.concurrent} in flight, ${LATENCY_MS} ms; ` +
        `2 serve + 2 worker per run; ${BRANDS} brands, ${PROMPTS} prompts each, ${VIEWS} views; ` +
        `${ROUNDS} rounds, modes in rotating order (columns in run order); ` +
        `load average at start ${load.join(" ")}; ${totalS.toFixed(0)} s in all\n`,
    );
    const rows: [string, (r: Result) => string, string][] = [
      ["1. onboarding: ready", (r) => `${r.onboarding.ready}/${BRANDS}`, `${BRANDS}/${BRANDS}`],
      ["1. wall time s", (r) => n(r.onboarding.wallS), ""],
      ["1. rate floor s (busiest group)", (r) => n(r.onboarding.floorS), ""],
      ["1. time ÷ floor", (r) => n(r.onboarding.timeOverFloor, 2), "≤ 1.20"],
      ["1. upstream calls (429)", (r) => `${r.onboarding.calls} (${r.onboarding.throttled})`, ""],
      ["1. 429 share", (r) => pct(r.onboarding.throttledPct), "≤ 1 %"],
      ["1. sent peak / s, in flight (observer; ≤ limit?)", (r) => peaks(r.onboarding), "≤ 10, ≤ 10"],
      ["1. admitted peak / s, in flight (simulator)", (r) => simPeaks(r.onboarding), "(≤ 10 always)"],
      ["2. prompts written", (r) => `${r.writeBurst.written}/${r.writeBurst.prompts}`, "all (or 503)"],
      ["2. items 502", (r) => String(r.writeBurst.item502), "0"],
      ["2. items 503 upstreamBusy", (r) => String(r.writeBurst.itemUpstreamBusy), "counted"],
      [
        "2. lost / live despite a failure",
        (r) => `${r.writeBurst.missing} / ${r.writeBurst.writtenDespiteFailure}`,
        "0 / 0",
      ],
      ["2. failed items left as drafts (retry publishes)", (r) => String(r.writeBurst.draftsLeft), "counted"],
      ["2. wall time s", (r) => n(r.writeBurst.wallS), ""],
      ["2. upstream calls per write (admitted)", (r) => n(r.writeBurst.callsPerWrite), ""],
      ["2. upstream calls (429)", (r) => `${r.writeBurst.calls} (${r.writeBurst.throttled})`, ""],
      ["2. 429 share", (r) => pct(r.writeBurst.throttledPct), "≤ 1 %"],
      ["2. pool view during burst p50 ms", (r) => n(r.writeBurst.viewsDuringBurst.p50Ms, 0), ""],
      ["2. sent peak / s, in flight (observer; ≤ limit?)", (r) => peaks(r.writeBurst), "≤ 10, ≤ 10"],
      ["2. admitted peak / s, in flight (simulator)", (r) => simPeaks(r.writeBurst), "(≤ 10 always)"],
      ["2b. second burst: prompts written", (r) => `${r.secondBurst.written}/${r.secondBurst.prompts}`, ""],
      ["2b. upstream calls per write (admitted)", (r) => n(r.secondBurst.callsPerWrite), ""],
      ["2b. wall time s", (r) => n(r.secondBurst.wallS), ""],
      ["2b. sent peak / s, in flight (observer; ≤ limit?)", (r) => peaks(r.secondBurst), "≤ 10, ≤ 10"],
      ["3a. views after the burst p50 ms", (r) => n(r.afterBurst?.p50Ms, 0), ""],
      ["3a. views after the burst p99 ms", (r) => n(r.afterBurst?.p99Ms, 0), ""],
      ["3a. upstream calls during them", (r) => String(r.afterBurst?.calls ?? "-"), "(refresh)"],
      ["3b. fresh views p50 ms", (r) => n(r.poolView?.p50Ms, 0), "≤ 50"],
      ["3b. fresh views p99 ms", (r) => n(r.poolView?.p99Ms, 0), "≤ 200"],
      ["3b. upstream calls during them", (r) => String(r.poolView?.calls ?? "-"), "0"],
      [
        "3. sent peak / s, in flight (observer; ≤ limit?)",
        (r) => `${peaks(r.afterBurst)} / ${peaks(r.poolView)}`,
        "≤ 10, ≤ 10",
      ],
    ];
    printTable(
      ["scenario / figure", ...results.map((r) => `${r.mode} ${r.round} (load ${r.load})`), "target (paced)"],
      rows.map(([label, cell, target]) => [label, ...results.map(cell), target]),
    );
    // Ratios side by side within a round (the machine's load moves between rounds).
    if (MODES.includes("paced") && MODES.length > 1) {
      for (const other of MODES.filter((mode) => mode !== "paced")) {
        const ratios = Array.from({ length: ROUNDS }, (_, r) => {
          const paced = results.find((x) => x.round === r + 1 && x.mode === "paced");
          const them = results.find((x) => x.round === r + 1 && x.mode === other);
          return paced && them ? (paced.onboarding.wallS / them.onboarding.wallS).toFixed(2) : "-";
        });
        console.log(`\nonboarding wall time, paced ÷ ${other}, per round: ${ratios.join(", ")}`);
      }
    }
    for (const result of results) {
      console.log(`\n${result.mode} (round ${result.round}):`);
      console.log(`  creates answered ${JSON.stringify(result.onboarding.createStatuses)}`);
      for (const line of result.onboarding.createFailures) console.log(`    create: ${line}`);
      for (const line of result.onboarding.failedBrands) console.log(`    failed brand: ${line}`);
      console.log(`  onboarding per (account, group), simulator: ${JSON.stringify(result.onboarding.keys)}`);
      console.log(
        `  onboarding per (account, group), observer: ${JSON.stringify(result.onboarding.observed)}`,
      );
      console.log(`  write requests answered ${JSON.stringify(result.writeBurst.requestStatuses)}`);
      console.log(`  write items ${JSON.stringify(result.writeBurst.itemOutcomes)}`);
      console.log(`  pool views during the burst ${JSON.stringify(result.writeBurst.viewsDuringBurst)}`);
      console.log(`  write burst per (account, group), simulator: ${JSON.stringify(result.writeBurst.keys)}`);
      console.log(
        `  write burst per (account, group), observer: ${JSON.stringify(result.writeBurst.observed)}`,
      );
      console.log(`  write burst calls per route: ${JSON.stringify(result.writeBurst.byRoute)}`);
      console.log(`  onboarding calls per route: ${JSON.stringify(result.onboarding.byRoute)}`);
      if (result.afterBurst && result.poolView)
        console.log(
          `  pool views answered ${JSON.stringify(result.afterBurst.statuses)} after the burst, ${JSON.stringify(result.poolView.statuses)} once fresh (fresh reached: ${result.poolView.fresh}, oldest entry ${result.poolView.oldestEntryS.toFixed(1)} s; the metering's own asOf ${result.poolView.meteringAgeS.toFixed(1)} s old)`,
        );
      console.log(`  second burst calls per route: ${JSON.stringify(result.secondBurst.byRoute)}`);
      for (const scenario of [
        result.onboarding,
        result.writeBurst,
        result.secondBurst,
        result.afterBurst,
        result.poolView,
      ]) {
        for (const line of scenario?.otherFailures.slice(0, 5) ?? [])
          console.log(`    upstream failure: ${line}`);
      }
      if (result.crashed.length > 0)
        console.log(`  processes that exited early: ${result.crashed.join("; ")}`);
    }
    console.log(`\nprocess logs: ${LOG_DIR}`);
  } finally {
    await observer.close();
    await stopAll([simulator]);
  }
}

await main();
