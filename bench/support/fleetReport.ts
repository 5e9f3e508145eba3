/**
 * The fleet benchmark's report: every figure next to the budget issue 42 names for it. Pure
 * arithmetic over what bench/fleet.ts collected; prints tables and returns a JSON summary.
 */
import type { Call } from "../../src/simulator/http/callLog.ts";
import { printTable } from "../allocation-support.ts";
import type { TableStat } from "./fleetDatabase.ts";
import { sourceOf } from "./fleetDatabase.ts";
import { type Interval, summariseLag, type VisitLog } from "./fleetLag.ts";
import { percentile, type Sample } from "./fleetTraffic.ts";

interface CpuSnapshot {
  bench: number;
  postgres: number;
  processes: Record<string, number>;
}

export interface RunFigures {
  orgs: number;
  minutes: number;
  rps: number;
  latencyMs: number;
  fleet: Record<string, number>;
  loadAverage: string[];
  setupS: number;
  onboarding: {
    wallS: number;
    concurrency: number;
    orgs: number;
    brandsReady: number;
    promptsWritten: number;
    failures: string[];
    upstreamCalls: number;
    throttled: number;
    cpu: { before: CpuSnapshot; after: CpuSnapshot };
  };
  window: {
    start: number;
    end: number;
    phaseSeconds: Record<string, number>;
    /** The bench's paused phases, epoch ms: the passes' lag is judged on the time outside them. */
    paused: readonly Interval[];
    faults: string[];
    cpu: { before: CpuSnapshot; after: CpuSnapshot };
  };
  orgIds: string[];
  /** Orgs with traffic from the bench or a job created during the window. */
  activeOrgIds: Set<string>;
  trafficOrgIds: Set<string>;
  /** Bearer hash → org, for every org's user. */
  accountOf: Map<string, string>;
  /** The operator's accounts (one per token SERENITY_UPSTREAM_TOKEN lists: ADR 0044). */
  operatorAccounts: Set<string>;
  /** Upstream workspace id → org. */
  owners: Map<string, string>;
  calls: Call[];
  rateKeys: {
    bearer: string;
    group: string;
    started: number;
    throttled: number;
    perSecondPeak: number;
    inFlightPeak: number;
  }[];
  reconcilerLog: VisitLog;
  samplerLog: VisitLog;
  periods: { reconcilerMs: number; samplerMs: number };
  /** Each org's last reconcile run's calls (ADR 0042); empty before that schema. */
  reconcileCalls: Map<string, number>;
  /** Whether the tree paces idle orgs (ADR 0042), and at how many calls an hour. */
  idlePace: boolean;
  idleCallsPerHour: number;
  /** How far back the fleet was aged after onboarding (ms). */
  agedMs: number;
  tablesBefore: TableStat[];
  tablesAfter: TableStat[];
  bytesBefore: number;
  bytesAfter: number;
  statementStats: boolean;
  statementsByPhase: Map<string, Map<string, { query: string; calls: number; totalMs: number }>>;
  samples: Sample[];
  skipped: number;
  scrapes: { name: string; text: string }[];
  crashed: string[];
  simulatorPid: number | undefined;
}

const n = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/** Tables whose rows must stay bounded, with the retention that bounds them (the code's defaults). */
const BOUNDED: [string, string, number | undefined][] = [
  ["upstream_budget_slots", "accounts unseen 24 h purged (job reconciler)", 24],
  ["upstream_budget_adaptive", "accounts unseen 24 h purged", 24],
  ["upstream_budget_waiters", "cleared as waits end", undefined],
  ["api_rate_limits", "ended windows purged (60 s windows)", undefined],
  ["idempotency_keys", "expired keys purged (24 h)", 24],
  ["jobs", "terminal records purged after 7 days", 24 * 7],
  ["pgboss.job", "pg-boss: completed archived after 12 h", 12],
  ["pgboss.archive", "pg-boss: archive deleted after 7 days", 24 * 7],
  ["pool_samples", "samples older than 7 days purged", 24 * 7],
  ["allocation_ledger", "none (an audit trail: grows with metered writes)", undefined],
];

function routeOf(call: Call): string {
  const bare = call.path
    .replace(/^\/enterprise\/(projects|users)\/api/, "")
    .replace(/\/(workspaces|projects|prompts)\/[^/]+/g, "/$1/:id");
  return `${call.method} ${bare}`;
}

/**
 * Each pass's period per org, as ADR 0042 gives it: the reconciler runs an active org every period and
 * an idle one every max(period, its last run's calls / 12 per hour); the sampler samples active orgs
 * every period and idle ones never (undefined: no budget to judge against).
 */
function periodsOf(figures: RunFigures) {
  const idle = (org: string) => !figures.activeOrgIds.has(org);
  return {
    reconciler: (org: string) => {
      const calls = figures.reconcileCalls.get(org);
      if (!figures.idlePace || !idle(org) || calls === undefined) return figures.periods.reconcilerMs;
      return Math.max(
        figures.periods.reconcilerMs,
        Math.ceil((calls * 3_600_000) / figures.idleCallsPerHour),
      );
    },
    sampler: (org: string) => (figures.idlePace && idle(org) ? undefined : figures.periods.samplerMs),
  };
}

function lagRows(figures: RunFigures) {
  const windowMs = figures.window.end - figures.window.start;
  const idle = figures.orgIds.filter((id) => !figures.activeOrgIds.has(id));
  const active = figures.orgIds.filter((id) => figures.activeOrgIds.has(id));
  const periods = periodsOf(figures);
  const rows: string[][] = [];
  const json: Record<string, unknown> = {};
  for (const [pass, log, periodOf] of [
    ["upstream reconciler", figures.reconcilerLog, periods.reconciler],
    ["pool sampler", figures.samplerLog, periods.sampler],
  ] as const) {
    for (const [kind, ids] of [
      ["idle", idle],
      ["active", active],
    ] as const) {
      const { start, end, paused } = figures.window;
      const gaps = log.worstGaps(ids, start, end, { paused, periodOf });
      const visited = ids.filter((id) => log.visitsDuring(id, end) > 0).length;
      const judged = new Map([...gaps].filter(([org]) => periodOf(org) !== undefined));
      const summary = summariseLag(gaps, visited, (org) => periodOf(org) ?? Infinity);
      const wall = summariseLag(log.worstGaps(ids, start, end), visited, (org) => periodOf(org) ?? Infinity);
      const worstWallS = wall.worstS;
      const orgPeriods = ids.map((id) => periodOf(id)).filter((value) => value !== undefined);
      const shortest = orgPeriods.length ? Math.min(...orgPeriods) : undefined;
      const longest = orgPeriods.length ? Math.max(...orgPeriods) : undefined;
      json[`${pass} ${kind}`] = {
        ...summary,
        worstWallS,
        overBudgetWall: wall.overBudget,
        periodS: [shortest, longest].map((ms) => (ms ?? NaN) / 1000),
      };
      const periodText =
        shortest === undefined
          ? "none (not sampled)"
          : shortest === longest
            ? `${shortest / 1000} s`
            : `${shortest / 1000}–${longest! / 1000} s`;
      rows.push([
        `${pass}, ${kind} orgs`,
        periodText,
        `${summary.visited}/${summary.orgs}`,
        n(summary.p50S, 0),
        n(summary.worstS, 0),
        n(worstWallS, 0),
        judged.size === 0 ? "-" : `${summary.overBudget} (${wall.overBudget})`,
        shortest === undefined
          ? "no visit expected"
          : `≤ 2 × period${windowMs < 2 * (longest ?? 0) ? " (window shorter than some: a lower bound)" : ""}`,
      ]);
    }
  }
  return { rows, json };
}

function callFigures(figures: RunFigures) {
  const hours = (figures.window.end - figures.window.start) / 3_600_000;
  const idleIds = figures.orgIds.filter((id) => !figures.activeOrgIds.has(id));
  const activeIds = figures.orgIds.filter((id) => figures.activeOrgIds.has(id));
  type Tally = { operator: number; own: number; other: number; byGroup: Record<string, number> };
  const perOrg = new Map<string, Tally>();
  const idleRoutes = new Map<string, number>();
  let unattributed = 0;
  const unattributedRoutes = new Map<string, number>();
  for (const call of figures.calls) {
    const workspace = /\/workspaces\/([^/]+)/.exec(call.path)?.[1];
    const org =
      (workspace && figures.owners.get(workspace)) || (call.account && figures.accountOf.get(call.account));
    if (!org) {
      unattributed += 1;
      const route = routeOf(call);
      unattributedRoutes.set(route, (unattributedRoutes.get(route) ?? 0) + 1);
      continue;
    }
    const tally = perOrg.get(org) ?? { operator: 0, own: 0, other: 0, byGroup: {} };
    if (call.account && figures.operatorAccounts.has(call.account)) tally.operator += 1;
    else if (call.account && figures.accountOf.get(call.account) === org) tally.own += 1;
    else tally.other += 1;
    const group = call.group ?? "none";
    tally.byGroup[group] = (tally.byGroup[group] ?? 0) + 1;
    perOrg.set(org, tally);
    if (!figures.activeOrgIds.has(org)) {
      const route = routeOf(call);
      idleRoutes.set(route, (idleRoutes.get(route) ?? 0) + 1);
    }
  }
  const sum = (ids: string[], pick: (tally: Tally) => number) =>
    ids.reduce((total, id) => total + (perOrg.get(id) ? pick(perOrg.get(id)!) : 0), 0);
  const perOrgHour = (ids: string[], pick: (tally: Tally) => number) =>
    ids.length === 0 ? NaN : sum(ids, pick) / (ids.length * hours);
  const all = (tally: Tally) => tally.operator + tally.own + tally.other;
  const idleWorst = Math.max(0, ...idleIds.map((id) => (perOrg.get(id) ? all(perOrg.get(id)!) : 0) / hours));
  const operatorKeys = figures.rateKeys.filter((key) => figures.operatorAccounts.has(key.bearer));
  const windowS = (figures.window.end - figures.window.start) / 1000;
  return {
    hours,
    idle: {
      orgs: idleIds.length,
      perOrgHour: perOrgHour(idleIds, all),
      operatorPerOrgHour: perOrgHour(idleIds, (tally) => tally.operator),
      ownPerOrgHour: perOrgHour(idleIds, (tally) => tally.own),
      worstOrgPerHour: idleWorst,
      routesPerOrgHour: Object.fromEntries(
        [...idleRoutes.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([route, count]) => [
            route,
            Number((count / (Math.max(1, idleIds.length) * hours)).toFixed(2)),
          ]),
      ),
    },
    active: {
      orgs: activeIds.length,
      operatorPerOrgHour: perOrgHour(activeIds, (tally) => tally.operator),
      ownPerOrgHour: perOrgHour(activeIds, (tally) => tally.own),
      perOrgHour: perOrgHour(activeIds, all),
    },
    unattributed,
    unattributedRoutes: Object.fromEntries([...unattributedRoutes.entries()].slice(0, 5)),
    total: figures.calls.length,
    throttled: figures.calls.filter((call) => call.throttled).length,
    operator: operatorKeys.map((key) => ({
      account: key.bearer,
      group: key.group,
      perSecond: Number((key.started / windowS).toFixed(2)),
      throttled: key.throttled,
      perSecondPeak: key.perSecondPeak,
      inFlightPeak: key.inFlightPeak,
    })),
  };
}

function tableGrowth(figures: RunFigures) {
  const hours = (figures.window.end - figures.window.start) / 3_600_000;
  const before = new Map(figures.tablesBefore.map((table) => [table.table, table]));
  return figures.tablesAfter.map((after) => {
    const was = before.get(after.table) ?? { table: after.table, bytes: 0, rows: 0 };
    return {
      table: after.table,
      bytes: after.bytes,
      rows: after.rows,
      rowsBefore: was.rows,
      bytesPerHour: (after.bytes - was.bytes) / hours,
      rowsPerHour: (after.rows - was.rows) / hours,
    };
  });
}

function latencyRows(samples: Sample[]) {
  const ops = ["all", ...new Set(samples.map((sample) => sample.op))];
  const json: Record<string, unknown> = {};
  const rows = ops.map((op) => {
    const of = (phase: string) =>
      samples.filter((sample) => sample.phase === phase && (op === "all" || sample.op === op));
    const running = of("running");
    const paused = of("paused");
    const stats = (list: Sample[]) => ({
      n: list.length,
      p50: percentile(
        list.map((sample) => sample.ms),
        50,
      ),
      p99: percentile(
        list.map((sample) => sample.ms),
        99,
      ),
      errors: list.filter((sample) => sample.status === 0 || sample.status >= 500).length,
    });
    const r = stats(running);
    const p = stats(paused);
    json[op] = { running: r, paused: p };
    return [
      op,
      `${r.n} / ${p.n}`,
      `${n(r.p50, 0)} / ${n(p.p50, 0)}`,
      `${n(r.p99, 0)} / ${n(p.p99, 0)}`,
      n(r.p50 / p.p50, 2),
      n(r.p99 / p.p99, 2),
      `${r.errors} / ${p.errors}`,
    ];
  });
  return { rows, json };
}

function statementRows(figures: RunFigures) {
  const sources = new Map<string, Record<string, { calls: number; ms: number }>>();
  const overall = new Map<string, { query: string; calls: number; totalMs: number }>();
  for (const [phase, statements] of figures.statementsByPhase) {
    for (const [id, stat] of statements) {
      const source = sourceOf(stat.query);
      const bucket = sources.get(source) ?? {};
      const entry = (bucket[phase] ??= { calls: 0, ms: 0 });
      entry.calls += stat.calls;
      entry.ms += stat.totalMs;
      sources.set(source, bucket);
      const total = overall.get(id) ?? { query: stat.query, calls: 0, totalMs: 0 };
      total.calls += stat.calls;
      total.totalMs += stat.totalMs;
      overall.set(id, total);
    }
  }
  const seconds = figures.window.phaseSeconds;
  const rate = (value: number | undefined, phase: string) =>
    value === undefined || !seconds[phase] ? 0 : value / seconds[phase]!;
  const json: Record<string, unknown> = {};
  const rows = [...sources.entries()]
    .map(([source, byPhase]) => {
      const running = rate(byPhase.running?.calls, "running");
      const paused = rate(byPhase.paused?.calls, "paused");
      json[source] = {
        runningPerSecond: running,
        pausedPerSecond: paused,
        runningMsPerSecond: rate(byPhase.running?.ms, "running"),
        pausedMsPerSecond: rate(byPhase.paused?.ms, "paused"),
      };
      return {
        running,
        row: [
          source,
          n(running, 1),
          n(paused, 1),
          n(rate(byPhase.running?.ms, "running"), 1),
          n(rate(byPhase.paused?.ms, "paused"), 1),
        ],
      };
    })
    .sort((a, b) => b.running - a.running);
  const totalSeconds = Object.values(seconds).reduce((sum, value) => sum + value, 0);
  const top = [...overall.values()]
    .sort((a, b) => b.calls - a.calls)
    .slice(0, 10)
    .map((stat) => ({
      perSecond: stat.calls / totalSeconds,
      meanMs: stat.totalMs / stat.calls,
      source: sourceOf(stat.query),
      query: stat.query.replace(/\s+/g, " ").slice(0, 110),
    }));
  const totals = ["running", "paused"].map((phase) =>
    [...sources.values()].reduce((sum, byPhase) => sum + rate(byPhase[phase]?.calls, phase), 0),
  );
  return { rows: rows.map((entry) => entry.row), json, top, totals };
}

function metricsFigures(scrapes: { name: string; text: string }[]) {
  return scrapes.map(({ name, text }) => {
    const series = text.split("\n").filter((line) => line && !line.startsWith("#"));
    const byName = new Map<string, number>();
    for (const line of series) {
      const metric = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? "?";
      const family = metric.replace(/_(bucket|sum|count)$/, "");
      byName.set(family, (byName.get(family) ?? 0) + 1);
    }
    return {
      name,
      series: series.length,
      bytes: Buffer.byteLength(text),
      orgLabelled: series.filter((line) => /[{,]org="/.test(line)).length,
      top: [...byName.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([metric, count]) => `${metric} ${count}`),
    };
  });
}

function cpuRows(cpu: { before: CpuSnapshot; after: CpuSnapshot }, seconds: number) {
  const rows: string[][] = [];
  const add = (name: string, before: number, after: number) =>
    rows.push([name, n(after - before, 1), `${n((100 * (after - before)) / seconds, 0)} %`]);
  add("bench (this process)", cpu.before.bench, cpu.after.bench);
  add("postgres (server + live backends)", cpu.before.postgres, cpu.after.postgres);
  for (const [name, after] of Object.entries(cpu.after.processes))
    add(name, cpu.before.processes[name] ?? 0, after);
  return rows;
}

export function printReport(figures: RunFigures) {
  const windowS = (figures.window.end - figures.window.start) / 1000;
  const onboarding = figures.onboarding;
  console.log(
    `\nfleet: ${figures.orgs} orgs (${JSON.stringify(figures.fleet)}), window ${n(windowS, 0)} s at production periods, ` +
      `${figures.rps} API requests / s on ${figures.trafficOrgIds.size} orgs, simulator ${figures.latencyMs} ms per call at 10 / s and 10 in flight per account and group; ` +
      `load average at the end ${figures.loadAverage.join(" ")}`,
  );

  console.log("\n1. Onboarding (through the API and the jobs, each org its own account)");
  printTable(
    ["figure", "value"],
    [
      ["orgs onboarded", `${onboarding.orgs}/${figures.orgs}`],
      ["brands ready", `${onboarding.brandsReady}/${figures.fleet.brands}`],
      ["prompts written", `${onboarding.promptsWritten}/${figures.fleet.prompts}`],
      ["wall time", `${n(onboarding.wallS, 0)} s (${onboarding.concurrency} orgs at once)`],
      ["orgs per second", n(onboarding.orgs / onboarding.wallS, 2)],
      ["upstream calls (429)", `${onboarding.upstreamCalls} (${onboarding.throttled})`],
      ["failures", `${onboarding.failures.length}`],
    ],
  );
  for (const failure of onboarding.failures.slice(0, 5)) console.log(`  ${failure}`);
  printTable(["process", "CPU s", "of one core"], cpuRows(onboarding.cpu, onboarding.wallS));

  console.log(
    `\n2. Window: ${JSON.stringify(figures.window.phaseSeconds)} s (paused = both workers stopped); faults: ${figures.window.faults.join("; ") || "none"}`,
  );

  console.log(
    "\n3a. Per-pass lag: the longest an org went without a visit, less the time it was overdue while the bench held the passes paused (budget: 2 × its period); wall time beside",
  );
  const lag = lagRows(figures);
  printTable(
    [
      "pass",
      "period",
      "visited in window",
      "p50 worst gap s",
      "worst gap s",
      "worst wall s",
      "orgs over (wall)",
      "budget",
    ],
    lag.rows,
  );
  console.log(
    `  (reconciler visits: upstream_reconcile_runs.last_finished_at; sampler visits: pool_sample_runs.last_finished_at. The fleet was aged ${n(figures.agedMs / 3_600_000, 1)} h after onboarding, so untouched orgs are idle. The sampler is counted from the window's start, the reconciler from each org's last run before it.)`,
  );

  console.log("\n3b. Upstream calls during the window, per org-hour (the simulator's call log)");
  const calls = callFigures(figures);
  printTable(
    ["orgs", "n", "all accounts", "operator's accounts", "the org's own account", "budget"],
    [
      [
        "idle",
        `${calls.idle.orgs}`,
        n(calls.idle.perOrgHour, 1),
        n(calls.idle.operatorPerOrgHour, 1),
        n(calls.idle.ownPerOrgHour, 1),
        "≤ 12 (background)",
      ],
      [
        "active",
        `${calls.active.orgs}`,
        n(calls.active.perOrgHour, 1),
        n(calls.active.operatorPerOrgHour, 1),
        n(calls.active.ownPerOrgHour, 1),
        "(own account: their traffic and views' refreshes)",
      ],
    ],
  );
  console.log(
    `  worst idle org: ${n(calls.idle.worstOrgPerHour, 1)} calls per hour of the window (a window shorter than an org's period sees one of its runs at most, and scaled to an hour over-counts it: the mean is the figure to judge)`,
  );
  console.log(`  idle orgs' calls per org-hour by route: ${JSON.stringify(calls.idle.routesPerOrgHour)}`);
  console.log(
    `  ${calls.total} calls in all (${calls.throttled} answered 429), ${calls.unattributed} with no org (${JSON.stringify(calls.unattributedRoutes)})`,
  );
  console.log(`  the operator's accounts per group: ${JSON.stringify(calls.operator)}`);

  console.log("\n3c. Database: size and growth by table during the window (growth extrapolated to a day)");
  const growth = tableGrowth(figures);
  console.log(
    `  database ${mb(figures.bytesBefore)} → ${mb(figures.bytesAfter)}: ${kb(figures.bytesAfter / figures.orgs)} per org; ` +
      `${mb(((figures.bytesAfter - figures.bytesBefore) / windowS) * 86_400)} per day at this pace`,
  );
  printTable(
    ["table", "size", "rows", "rows / h", "bytes / h", "per day", "per org per day"],
    growth
      .filter((row) => row.bytes > 16_384 || row.rowsPerHour !== 0)
      .sort((a, b) => b.bytesPerHour - a.bytesPerHour || b.bytes - a.bytes)
      .slice(0, 16)
      .map((row) => [
        row.table,
        kb(row.bytes),
        `${row.rows}`,
        n(row.rowsPerHour, 0),
        kb(row.bytesPerHour),
        mb(row.bytesPerHour * 24),
        kb((row.bytesPerHour * 24) / figures.orgs),
      ]),
  );

  console.log("\n3d. Rows that must stay bounded (steady state = rows added per hour × retention)");
  const byTable = new Map(growth.map((row) => [row.table, row]));
  printTable(
    ["table", "rows start → end", "rows / h", "retention", "steady-state rows"],
    BOUNDED.filter(([table]) => byTable.has(table)).map(([table, retention, hours]) => {
      const row = byTable.get(table)!;
      return [
        table,
        `${row.rowsBefore} → ${row.rows}`,
        n(row.rowsPerHour, 0),
        retention,
        hours === undefined ? "(rows now)" : n(Math.max(row.rows, row.rowsPerHour * hours), 0),
      ];
    }),
  );

  console.log("\n3e. /metrics after the window");
  const metrics = metricsFigures(figures.scrapes);
  printTable(
    ["process", "series", "scrape size", "series with an org label", "largest families"],
    metrics.map((row) => [
      row.name,
      `${row.series}`,
      kb(row.bytes),
      `${row.orgLabelled}`,
      row.top.join(", "),
    ]),
  );

  console.log("\n3f. API latency of the background traffic, passes running vs paused (same run, same rate)");
  const latency = latencyRows(figures.samples);
  printTable(
    ["request", "n running / paused", "p50 ms", "p99 ms", "p50 ratio", "p99 ratio", "5xx or no answer"],
    latency.rows,
  );
  if (figures.skipped > 0) console.log(`  ${figures.skipped} arrivals skipped (200 requests in flight)`);

  console.log(
    `\n3g. PostgreSQL statements per second by source (${figures.statementStats ? "pg_stat_statements, top-level statements, classified by the tables their text names" : "pg_stat_statements unavailable on this server: not measured"})`,
  );
  const statements = statementRows(figures);
  if (figures.statementStats) {
    printTable(
      ["source", "calls / s running", "calls / s paused", "exec ms / s running", "exec ms / s paused"],
      statements.rows,
    );
    console.log(
      `  total: ${n(statements.totals[0]!, 0)} / s running, ${n(statements.totals[1]!, 0)} / s paused`,
    );
    for (const top of statements.top)
      console.log(
        `  ${n(top.perSecond, 1).padStart(7)} / s ${n(top.meanMs, 2).padStart(6)} ms  [${top.source}] ${top.query}`,
      );
  }

  console.log("\n4. CPU during the window");
  printTable(["process", "CPU s", "of one core"], cpuRows(figures.window.cpu, windowS));
  if (figures.crashed.length > 0) console.log(`processes that exited early: ${figures.crashed.join("; ")}`);

  return {
    orgs: figures.orgs,
    minutes: figures.minutes,
    fleet: figures.fleet,
    onboarding: { ...onboarding, failures: onboarding.failures.slice(0, 20) },
    window: { ...figures.window, seconds: windowS },
    lag: lag.json,
    calls,
    growth,
    metrics,
    latency: latency.json,
    statements: { bySource: statements.json, top: statements.top },
  };
}
