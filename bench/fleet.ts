/**
 * The fleet benchmark: many orgs on one PostgreSQL, at production periods, in real time.
 *
 *   npx tsx bench/fleet.ts [--orgs 2000] [--minutes 20] [--rps N] [--active-share 0.05]
 *                          [--onboard-concurrency N] [--latency-ms 50] [--seed 42] [--json out.json]
 *                          [--operator-tokens N]
 *
 * One `serenity simulator` at Semrush's limits (10 / s and 10 in flight per account and endpoint
 * group) with `--latency-ms` per call; one PostgreSQL (DATABASE_URL's server when set, else an
 * embedded one, started with pg_stat_statements); 2 `serenity serve` + 2 `serenity worker` with the
 * default settings (every background period at its production default), dynamic allocation on, and
 * operator tokens (SERENITY_UPSTREAM_TOKEN, one per 700 orgs unless `--operator-tokens`, each its
 * own upstream account; ADR 0044).
 *
 * 1. Onboarding: `--orgs` orgs (bench/support/fleetPlan.ts: most with 1–3 brands of 1–2 markets and
 *    20–100 prompts, one in a hundred large, every fourth parent metered), each its own parent and its
 *    own user — its own upstream account, whose credential its jobs store — through the API and the
 *    jobs, many orgs at once (bench/support/fleetOnboarding.ts).
 * 2. The window: `--minutes` of real time. A few percent of the orgs (`--active-share`) get a light
 *    open-loop background of API traffic (`--rps`: pool views, prompt lists, brand reads, small prompt
 *    writes); the rest are idle. Phases alternate: passes running, then passes paused (both workers
 *    SIGSTOPped) with the same traffic, a quarter of each cycle. Faults: a worker SIGKILLed and
 *    started again 15 s later; a burst of upstream 503s on resources and family reads.
 * 3. The report, each figure against the budget issue 42 names: per-pass worst lag; background
 *    upstream calls per idle and per active org-hour (the simulator's call log, each call attributed to
 *    an org by the workspace in its path and to an account by its bearer's hash); database size per
 *    org and growth per hour by table, extrapolated to a day; the rows that must stay bounded;
 *    `/metrics` series and scrape size; API p50 / p99 with the passes running vs paused; statements
 *    per second by source (pg_stat_statements, classified by table names in the statement text);
 *    the wall time and CPU of the bench and of every process.
 *
 * Process logs go to a temporary directory named at the end. Linux only (/proc for CPU and RSS).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { signDevToken } from "../src/auth/tokenVerifier.ts";
import { freePort } from "../src/config/freePort.ts";
import type { Call } from "../src/simulator/http/callLog.ts";
import { seededRandom } from "../src/simulator/http/faults.ts";
import { bearerHash } from "../src/simulator/http/requestLimiter.ts";
import { FleetDatabase } from "./support/fleetDatabase.ts";
import { VisitLog } from "./support/fleetLag.ts";
import { inParallel, type OnboardedOrg, onboardOrg } from "./support/fleetOnboarding.ts";
import { describeFleet, planFleet } from "./support/fleetPlan.ts";
import {
  cpuSecondsOf,
  cpuSecondsOfTree,
  type Proc,
  running,
  sleep,
  spawnSerenity,
  stopAll,
  until,
} from "./support/fleetProcesses.ts";
import { printReport, type RunFigures } from "./support/fleetReport.ts";
import { Traffic } from "./support/fleetTraffic.ts";
import { roundRobinApi } from "./support/roundRobinApi.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({
  options: {
    orgs: { type: "string", default: "2000" },
    minutes: { type: "string", default: "20" },
    rps: { type: "string" },
    "active-share": { type: "string", default: "0.05" },
    "onboard-concurrency": { type: "string" },
    "latency-ms": { type: "string", default: "50" },
    seed: { type: "string", default: "42" },
    /** After onboarding, every activity mark and job moved back this long (0 = not aged). */
    "aged-hours": { type: "string", default: "2" },
    json: { type: "string" },
    /** Operator tokens (accounts) the processes share the orgs over (default: one per 700 orgs). */
    "operator-tokens": { type: "string" },
  },
});
const ORGS = Number(args.orgs);
const MINUTES = Number(args.minutes);
const RPS = args.rps ? Number(args.rps) : Math.max(2, ORGS / 100);
const ACTIVE_SHARE = Number(args["active-share"]);
// Orgs onboarding at once: each is its own account, so the limit is the workers' job slots and the
// machine, not an upstream budget; a tenth of the fleet keeps the job queue full at every size.
const ONBOARD_CONCURRENCY = args["onboard-concurrency"]
  ? Number(args["onboard-concurrency"])
  : Math.min(ORGS, Math.max(60, Math.ceil(ORGS / 10)));
/** Job polls spaced so polling stays near its rate at 60 orgs at once (≈ 60 a second), whatever the size. */
const POLL_MS = Math.max(2_000, ONBOARD_CONCURRENCY * 33);
const LATENCY_MS = Number(args["latency-ms"]);
const SEED = Number(args.seed);
const AGED_MS = Number(args["aged-hours"]) * 3_600_000;
const LIMIT = { perSecond: 10, concurrent: 10 };
/** One operator account per 700 orgs (ADR 0044's sizing for 5 % of them active). */
const OPERATOR_TOKENS = Array.from(
  { length: args["operator-tokens"] ? Number(args["operator-tokens"]) : Math.max(1, Math.ceil(ORGS / 700)) },
  (_, index) => `fleet-operator-${index}-${randomBytes(8).toString("hex")}`,
);
const SECRET = randomBytes(32).toString("hex");
const LOG_DIR = mkdtempSync(path.join(os.tmpdir(), "serenity-fleet-"));
/** The production defaults the lag is judged against (docs/configuration.md). */
export const PERIODS = { reconcilerMs: 300_000, samplerMs: 60_000 };

const benchStarted = performance.now();
const benchCpuStart = process.cpuUsage();
const procs: Proc[] = [];
let dropDatabase: (() => Promise<void>) | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void (async () => {
      await stopAll(procs);
      await dropDatabase?.().catch(() => {});
      process.exit(130);
    })();
  });
}

/** The cycle of phases: passes running for three quarters, paused (workers stopped) for one. */
function phasesFor(windowMs: number): { kind: "running" | "paused"; startMs: number; endMs: number }[] {
  const cycleMs = Math.min(120_000, windowMs / 2);
  const phases: { kind: "running" | "paused"; startMs: number; endMs: number }[] = [];
  for (let start = 0; start < windowMs; start += cycleMs) {
    const pauseAt = Math.min(windowMs, start + cycleMs * 0.75);
    phases.push({ kind: "running", startMs: start, endMs: pauseAt });
    if (pauseAt < windowMs)
      phases.push({ kind: "paused", startMs: pauseAt, endMs: Math.min(windowMs, start + cycleMs) });
  }
  return phases;
}

async function main() {
  const scratch = await scratchDatabase("fleet", { statementStats: true });
  dropDatabase = () => scratch.drop();
  const database = await FleetDatabase.open(scratch.url, scratch.statementStats);
  const postmasterPid = await (async () => {
    try {
      const [row] = await database.query<{ pid: number }>(
        "select pid from pg_stat_activity where backend_type = 'checkpointer'",
      );
      // The checkpointer is a child of the postmaster: its parent is the server.
      const stat = row ? (await import("node:fs")).readFileSync(`/proc/${row.pid}/stat`, "utf8") : undefined;
      return stat ? Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) : undefined;
    } catch {
      return undefined;
    }
  })();

  const simPort = await freePort();
  const sim = `http://127.0.0.1:${simPort}`;
  procs.push(
    spawnSerenity(
      LOG_DIR,
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
    ),
  );
  const simulator = procs[0]!;
  await until("the simulator", async () => (await fetch(`${sim}/__sim/settings`)).ok, 60_000);
  const control = async <T>(route: string, method = "GET", body?: unknown): Promise<T> => {
    const response = await fetch(`${sim}/__sim${route}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };

  const shared: Record<string, string> = {
    DATABASE_URL: scratch.url,
    SEMRUSH_PROJECTS_BASE_URL: sim,
    SEMRUSH_USERS_BASE_URL: sim,
    SERENITY_AUTH_SECRET: SECRET,
    SERENITY_CREDENTIAL_KEY: randomBytes(32).toString("base64"),
    SERENITY_DYNAMIC_ALLOCATION: "true",
    SERENITY_ASYNC_PROVISIONING: "true",
    SERENITY_UPSTREAM_TOKEN: OPERATOR_TOKENS.join(","),
    SERENITY_MIGRATE_ON_START: "true",
  };
  const apis: string[] = [];
  const serves: Proc[] = [];
  for (const index of [1, 2]) {
    const port = await freePort();
    const proc = spawnSerenity(LOG_DIR, `serve-${index}`, ["serve"], {
      ...shared,
      PORT: String(port),
      SERENITY_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "serenity-fleet-data-")),
    });
    procs.push(proc);
    serves.push(proc);
    apis.push(`http://127.0.0.1:${port}`);
  }
  const workers: { proc: Proc; port: number }[] = [];
  const startWorker = async (name: string) => {
    const port = await freePort();
    const proc = spawnSerenity(LOG_DIR, name, ["worker"], {
      ...shared,
      SERENITY_WORKER_PORT: String(port),
      SERENITY_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "serenity-fleet-data-")),
    });
    procs.push(proc);
    return { proc, port };
  };
  for (const index of [1, 2]) workers.push(await startWorker(`worker-${index}`));
  for (const api of apis)
    await until(`${api}/readyz`, async () => (await fetch(`${api}/readyz`)).ok, 120_000);
  for (const worker of workers)
    await until(
      `worker ${worker.port}`,
      async () => (await fetch(`http://127.0.0.1:${worker.port}/readyz`)).ok,
      120_000,
    );
  const setupS = (performance.now() - benchStarted) / 1000;

  const call = roundRobinApi(apis);

  // 1. Onboarding.
  const plans = planFleet(ORGS, SEED);
  const fleet = describeFleet(plans);
  const adminToken = await signDevToken(SECRET, { sub: "fleet-admin", admin: true, ttlSeconds: 24 * 3600 });
  // A killed process's CPU is its last reading (read again just before the kill).
  const lastCpu = new Map<string, number>();
  const procCpu = (proc: Proc) => {
    const seconds = cpuSecondsOf(proc.child.pid);
    if (seconds > 0) lastCpu.set(proc.name, seconds);
    return lastCpu.get(proc.name) ?? 0;
  };
  const cpuOf = () => ({
    bench: (() => {
      const usage = process.cpuUsage(benchCpuStart);
      return (usage.user + usage.system) / 1e6;
    })(),
    postgres: cpuSecondsOfTree(postmasterPid),
    processes: Object.fromEntries(procs.map((proc) => [proc.name, procCpu(proc)])),
  });
  const onboardCpu0 = cpuOf();
  const onboardStarted = performance.now();
  let onboarded = 0;
  const progress = setInterval(() => {
    const s = (performance.now() - onboardStarted) / 1000;
    console.error(`fleet: onboarding ${onboarded}/${ORGS} orgs after ${s.toFixed(0)} s`);
  }, 30_000);
  const orgs: OnboardedOrg[] = [];
  const onboardErrors: string[] = [];
  await inParallel(plans, ONBOARD_CONCURRENCY, async (plan) => {
    try {
      orgs.push(
        await onboardOrg(
          {
            call,
            adminToken,
            pollMs: POLL_MS,
            tokenFor: (index, orgId) =>
              signDevToken(SECRET, { sub: `fleet-user-${index + 1}`, orgs: [orgId], ttlSeconds: 24 * 3600 }),
            createParent: async (orgPlan) => {
              const markets = orgPlan.brands.reduce((sum, brand) => sum + brand.markets.length, 0);
              const prompts = orgPlan.brands.reduce((sum, brand) => sum + brand.prompts, 0);
              const parent = await control<{ id: string }>("/parents", "POST", {
                title: `Fleet parent ${orgPlan.index + 1}`,
                metered: orgPlan.metered,
                projects: markets + 5,
                prompts: 20 * (prompts + 200),
              });
              return parent.id;
            },
          },
          plan,
        ),
      );
    } catch (error) {
      onboardErrors.push(String(error).slice(0, 200));
    }
    onboarded += 1;
  });
  clearInterval(progress);
  const onboardS = (performance.now() - onboardStarted) / 1000;
  const onboardCpu1 = cpuOf();
  const onboardRate = await control<{ keys: { started: number; throttled: number }[] }>("/rate");
  // Let every job of the onboarding end before the window opens.
  await until(
    "every job terminal",
    async () =>
      Number(
        (
          await database.query<{ n: string }>("select count(*) as n from jobs where status = 'IN_PROGRESS'")
        )[0]?.n,
      ) === 0,
    300_000,
    2_000,
  ).catch((error: unknown) => console.error(String(error)));

  // The fleet as it stands long after its onboarding: ADR 0042 calls an org idle after an hour
  // without a request or a job change, longer than the window, so the marks are moved back.
  const agedRows = AGED_MS > 0 ? await database.ageFleet(AGED_MS) : 0;
  if (AGED_MS > 0) {
    console.error(`fleet: aged ${agedRows} activity marks and jobs by ${AGED_MS / 3_600_000} h`);
    // A pass that began before the aging decided every org's pace at its start, when all of them
    // were onboarding (active): at 2,000 orgs such a sampler pass ran 6 minutes into the window on
    // the operator's accounts. A fleet that went quiet over hours has no such pass, so the workers
    // are restarted (SIGTERM: a pass stops at its next org) and the window's passes start from the
    // aged fleet.
    for (const worker of workers) worker.proc.child.kill("SIGTERM");
    await until(
      "the workers stopped",
      async () => workers.every((worker) => !running(worker.proc)),
      60_000,
      200,
    );
    for (const worker of workers) procs.splice(procs.indexOf(worker.proc), 1);
    for (const index of [0, 1]) workers[index] = await startWorker(`worker-${index + 1}-aged`);
    for (const worker of workers)
      await until(
        `worker ${worker.port}`,
        async () => (await fetch(`http://127.0.0.1:${worker.port}/readyz`)).ok,
        120_000,
      );
  }

  // 2. The window.
  const random = seededRandom(SEED + 1);
  const shuffled = [...orgs].sort(() => random() - 0.5);
  const activeCount = Math.max(2, Math.ceil(ORGS * ACTIVE_SHARE));
  const active = shuffled.filter((org) => org.brands.length > 0).slice(0, activeCount);
  const traffic = new Traffic(call, active, random);
  const reconcilerLog = new VisitLog();
  const samplerLog = new VisitLog();
  const windowMs = MINUTES * 60_000;

  await control("/calls", "DELETE");
  await control("/rate", "DELETE");
  await database.resetStatements();
  const tablesBefore = await database.tables();
  const bytesBefore = await database.databaseBytes();
  const windowStart = Date.now();
  const windowStartDate = new Date(windowStart);
  reconcilerLog.start(await database.reconcilerVisits());
  // With the workers restarted after the aging, an active org's stretch before its first sample
  // in the window spans the bench's own restart (its last sample was before it): the sampler is
  // judged from the window's start, which comes once both workers are ready again. (Run D of
  // 5 December 2026 showed every one of its 19 sampler gaps over 120 s spanning that restart.)
  if (AGED_MS > 0) samplerLog.startFromWindow(await database.samplerVisits());
  else samplerLog.start(await database.samplerVisits());
  const windowCpu0 = cpuOf();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      await sleep(5_000);
      try {
        reconcilerLog.observe(await database.reconcilerVisits());
        samplerLog.observe(await database.samplerVisits());
      } catch (error) {
        console.error(`fleet: visit poll failed: ${String(error)}`);
      }
    }
  })();

  // Statement counts per phase kind: a snapshot at every boundary, the difference added to the phase.
  const statementsByPhase = new Map<string, Map<string, { query: string; calls: number; totalMs: number }>>();
  const phaseSeconds = new Map<string, number>();
  let lastSnapshot = await database.statements();
  const closePhase = async (kind: string, seconds: number) => {
    const now = await database.statements();
    const into = statementsByPhase.get(kind) ?? new Map();
    for (const [id, stat] of now) {
      const before = lastSnapshot.get(id);
      const calls = stat.calls - (before?.calls ?? 0);
      if (calls <= 0) continue;
      const entry = into.get(id) ?? { query: stat.query, calls: 0, totalMs: 0 };
      entry.calls += calls;
      entry.totalMs += stat.totalMs - (before?.totalMs ?? 0);
      into.set(id, entry);
    }
    statementsByPhase.set(kind, into);
    phaseSeconds.set(kind, (phaseSeconds.get(kind) ?? 0) + seconds);
    lastSnapshot = now;
  };

  let paused = false;
  /** The wall-time intervals the workers spent SIGSTOPped by the bench (not counted as lag). */
  const pausedIntervals: [number, number][] = [];
  const setPaused = (pause: boolean) => {
    if (pause && !paused) pausedIntervals.push([Date.now(), Infinity]);
    if (!pause && paused) pausedIntervals[pausedIntervals.length - 1]![1] = Date.now();
    paused = pause;
    for (const worker of workers)
      if (running(worker.proc)) worker.proc.child.kill(pause ? "SIGSTOP" : "SIGCONT");
  };
  const faults: string[] = [];
  const phases = phasesFor(windowMs);
  const killAt =
    (phases.find((phase) => phase.kind === "running" && phase.startMs > 0)?.startMs ?? windowMs * 0.3) +
    10_000;
  // The 503 burst lands in the last running phase, where the passes read.
  const burstAt = ([...phases].reverse().find((phase) => phase.kind === "running")?.startMs ?? 0) + 20_000;
  const faultTimers = [
    setTimeout(() => {
      const victim = workers[1]!;
      procCpu(victim.proc);
      victim.proc.child.kill("SIGKILL");
      faults.push(`${((Date.now() - windowStart) / 1000).toFixed(0)} s: ${victim.proc.name} SIGKILLed`);
      setTimeout(() => {
        void startWorker(`${victim.proc.name}-restarted`).then((restarted) => {
          workers[1] = restarted;
          if (paused) restarted.proc.child.kill("SIGSTOP");
          faults.push(`${((Date.now() - windowStart) / 1000).toFixed(0)} s: ${restarted.proc.name} started`);
        });
      }, 15_000);
    }, killAt),
    setTimeout(() => {
      void (async () => {
        for (const pathPattern of ["/resources$", "/family$"])
          await control("/faults", "POST", {
            match: { method: "GET", pathPattern },
            action: { status: 503 },
            times: 40,
          });
        faults.push(
          `${((Date.now() - windowStart) / 1000).toFixed(0)} s: 80 upstream 503s queued (40 resources reads, 40 family reads)`,
        );
      })();
    }, burstAt),
  ];

  traffic.start(RPS);
  for (const phase of phases) {
    traffic.phase = phase.kind;
    setPaused(phase.kind === "paused");
    const waitMs = windowStart + phase.endMs - Date.now();
    if (waitMs > 0) await sleep(waitMs);
    await closePhase(phase.kind, (phase.endMs - phase.startMs) / 1000);
  }
  setPaused(false);
  for (const timer of faultTimers) clearTimeout(timer);
  await traffic.stop();
  const windowEnd = Date.now();
  polling = false;
  await poller;
  reconcilerLog.observe(await database.reconcilerVisits());
  samplerLog.observe(await database.samplerVisits());
  const windowCpu1 = cpuOf();

  // 3. Collect (a worker started again late gets its chance to answer /metrics).
  for (const worker of workers)
    await until(
      `${worker.proc.name} ready`,
      async () => (await fetch(`http://127.0.0.1:${worker.port}/readyz`)).ok,
      60_000,
    ).catch((error: unknown) => console.error(String(error)));
  const calls = await control<Call[]>("/calls");
  const rate = await control<{
    keys: {
      bearer: string;
      group: string;
      started: number;
      throttled: number;
      perSecondPeak: number;
      inFlightPeak: number;
    }[];
  }>("/rate");
  await control("/faults", "DELETE");
  const tablesAfter = await database.tables();
  const bytesAfter = await database.databaseBytes();
  const owners = await database.workspaceOwners();
  const jobOrgs = await database.orgsWithJobsSince(windowStartDate);
  const scrapes = await Promise.all(
    [
      ...apis.map((api, i) => ({ name: `serve-${i + 1}`, url: `${api}/metrics` })),
      ...workers.map((worker) => ({
        name: worker.proc.name,
        url: `http://127.0.0.1:${worker.port}/metrics`,
      })),
    ].map(async (target) => {
      try {
        return { name: target.name, text: await (await fetch(target.url)).text() };
      } catch {
        return { name: target.name, text: "" };
      }
    }),
  );

  const figures: RunFigures = {
    orgs: ORGS,
    minutes: MINUTES,
    rps: RPS,
    latencyMs: LATENCY_MS,
    fleet,
    loadAverage: os.loadavg().map((value) => value.toFixed(2)),
    setupS,
    onboarding: {
      wallS: onboardS,
      concurrency: ONBOARD_CONCURRENCY,
      orgs: orgs.length,
      brandsReady: orgs.reduce((sum, org) => sum + org.brands.length, 0),
      promptsWritten: orgs.reduce((sum, org) => sum + org.promptsWritten, 0),
      failures: [...onboardErrors, ...orgs.flatMap((org) => org.failures)],
      upstreamCalls: onboardRate.keys.reduce((sum, key) => sum + key.started + key.throttled, 0),
      throttled: onboardRate.keys.reduce((sum, key) => sum + key.throttled, 0),
      cpu: { before: onboardCpu0, after: onboardCpu1 },
    },
    window: {
      start: windowStart,
      end: windowEnd,
      phaseSeconds: Object.fromEntries(phaseSeconds),
      paused: pausedIntervals,
      faults,
      cpu: { before: windowCpu0, after: windowCpu1 },
    },
    orgIds: orgs.map((org) => org.id),
    activeOrgIds: new Set([...active.map((org) => org.id), ...jobOrgs]),
    trafficOrgIds: new Set(active.map((org) => org.id)),
    accountOf: new Map(orgs.map((org) => [bearerHash(org.token), org.id])),
    operatorAccounts: new Set(OPERATOR_TOKENS.map(bearerHash)),
    owners,
    calls,
    rateKeys: rate.keys,
    reconcilerLog,
    samplerLog,
    periods: PERIODS,
    reconcileCalls: await database.reconcileCalls(),
    idlePace: await database.hasIdlePace(),
    idleCallsPerHour: 12,
    agedMs: AGED_MS,
    tablesBefore,
    tablesAfter,
    bytesBefore,
    bytesAfter,
    statementStats: database.statementStats,
    statementsByPhase,
    samples: traffic.samples,
    skipped: traffic.skipped,
    scrapes,
    crashed: procs
      .filter((proc) => proc.exited && proc !== workers[1]?.proc)
      .map((proc) => `${proc.name}: ${proc.exited}`),
    simulatorPid: simulator.child.pid,
  };
  const summary = printReport(figures);
  await database.close();
  await stopAll(procs);
  await scratch.drop();
  dropDatabase = undefined;
  const wallS = (performance.now() - benchStarted) / 1000;
  const benchCpu = process.cpuUsage(benchCpuStart);
  console.log(
    `\nbench wall time ${wallS.toFixed(0)} s (setup ${setupS.toFixed(0)} s, onboarding ${onboardS.toFixed(0)} s, window ${((windowEnd - windowStart) / 1000).toFixed(0)} s); ` +
      `the bench process itself used ${((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)} CPU s`,
  );
  console.log(`process logs: ${LOG_DIR}`);
  // Each active org's sampler visits (ms into the window), beside the phases and faults: which
  // pause, kill or burst a long gap follows.
  const samplerVisits = Object.fromEntries(
    active.map((org) => [
      org.id,
      [samplerLog.before.get(org.id) ?? null, ...(samplerLog.during.get(org.id) ?? [])].map((at) =>
        at === null ? null : at - windowStart,
      ),
    ]),
  );
  if (args.json)
    writeFileSync(
      args.json,
      `${JSON.stringify({ ...summary, wallS, phases, faults, samplerVisits }, null, 2)}\n`,
    );
}

try {
  await main();
} catch (error) {
  console.error(error);
  await stopAll(procs);
  await dropDatabase?.().catch(() => {});
  process.exitCode = 1;
}
