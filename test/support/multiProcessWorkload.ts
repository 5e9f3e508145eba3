import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { BLOCK, DIMENSIONS, roundUpToBlock, type Units } from "../../src/domain/allocation.ts";
import type { SimulatorDump } from "../../src/simulator/createSimulator.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { SERENITY_BIN } from "./cli.ts";
import { HELD_UNTIL_RELEASED_MS, type TestSimulator, UM } from "./simulator.ts";
import { track, waitFor } from "./wait.ts";

/**
 * The multi-process allocation workload (spec/allocation.md §4, SPEC §7 "zero self-inflicted quota
 * rejections"): several `serenity serve` child processes on one database and one simulator, many
 * concurrent metered writes to ONE brand split across them, then the upstream's state read back
 * from the simulator's dump and call log. Shared by test/reliability/allocationMultiProcess.test.ts
 * and bench/allocation-contention.ts, so the benchmark measures exactly what the test proves.
 */

export const AUTH_SECRET = "multi-process-test-secret-0123456789abcdef";

/** One `serenity serve` child process. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `serenity serve` with the in-process allocation lock handed to its composition root. */
const IN_PROCESS_LOCK_SERVE = path.resolve("test/support/inProcessLockServe.ts");

export interface ServeOptions {
  databaseUrl: string;
  simulatorUrl: string;
  /** Extra environment (e.g. a shorter publish-lag window). */
  env?: Record<string, string>;
  /**
   * Run the same `serve` with the in-process allocation lock (test/support/inProcessLockServe.ts,
   * through tsx): the negative control of the multi-process suite.
   */
  inProcessLock?: boolean;
  /** Another checkout's `bin/serenity.mjs`, run from that checkout (a previous release). */
  checkout?: { bin: string; cwd: string };
}

/** How long `startServe` waits for the readiness line before it gives up (a hang guard). */
export const SERVE_START_GUARD_MS = 240_000;

/**
 * `node bin/serenity.mjs serve` with PORT=0; resolves with the URL of its "serenity API listening"
 * log line. Each process gets its own data dir (generated secrets), the shared auth secret (so one
 * token works on all of them) and dynamic allocation on.
 */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-serve-"));
  const args = options.inProcessLock
    ? ["--import", "tsx", IN_PROCESS_LOCK_SERVE]
    : [options.checkout?.bin ?? SERENITY_BIN, "serve"];
  const child = spawn(process.execPath, args, {
    cwd: options.checkout?.cwd,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      SEMRUSH_PROJECTS_BASE_URL: options.simulatorUrl,
      SEMRUSH_USERS_BASE_URL: options.simulatorUrl,
      SERENITY_DYNAMIC_ALLOCATION: "true",
      SERENITY_AUTH_SECRET: AUTH_SECRET,
      SERENITY_DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    // A hang guard only, with the output to show for it: several cold starts at once on a loaded
    // 2-core machine have taken well over a minute, and a start is awaited by its readiness line.
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `serve did not start in ${SERVE_START_GUARD_MS / 1000} s:\n${stdout.slice(-2000)}\n${stderr}`,
          ),
        ),
      SERVE_START_GUARD_MS,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split("\n")) {
        if (!line.includes("serenity API listening")) continue;
        try {
          const parsed = JSON.parse(line) as { url?: string };
          if (parsed.url) {
            clearTimeout(timer);
            resolve(parsed.url);
            return;
          }
        } catch {
          // a partial line: wait for the rest
        }
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited early (${code}):\n${stdout.slice(-2000)}\n${stderr}`));
    });
  });
  return {
    url,
    child,
    output: () => stdout + stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON over HTTP with a bearer; the body parsed when there is one. */
export async function api<T = unknown>(
  baseUrl: string,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function simControl<T = unknown>(simulatorUrl: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${simulatorUrl}/__sim${route}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`simulator ${route} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * The org of the gold pool (created through the process's API the first time; one org per pool,
 * so later callers on the same database share it) and a member token.
 */
export async function prepareOrg(baseUrl: string): Promise<{ orgId: string; token: string }> {
  const admin = await signDevToken(AUTH_SECRET, { sub: "mp-admin", admin: true });
  const listed = await api<{ items: { id: string; parentWorkspaceId: string | null }[] }>(
    baseUrl,
    admin,
    "GET",
    "/v2/orgs",
  );
  let orgId = listed.body.items.find((org) => org.parentWorkspaceId === GOLD_PARENT_WORKSPACE_ID)?.id;
  if (!orgId) {
    const org = await api<{ id: string }>(baseUrl, admin, "POST", "/v2/orgs", {
      name: "Multi-process org",
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
    });
    if (org.status !== 201) throw new Error(`org create answered ${org.status}`);
    orgId = org.body.id;
  }
  return { orgId, token: await signDevToken(AUTH_SECRET, { sub: "mp-user", orgs: [orgId] }) };
}

export interface WorkloadShape {
  /** Concurrent bulk prompt requests, round-robin over the processes. */
  writes: number;
  /** New texts per request (one model on the market, so units = texts). */
  textsPerWrite: number;
  /** Simulator latency while the writes run (the race window). */
  latencyMs: number;
}

export const DEFAULT_SHAPE: WorkloadShape = { writes: 16, textsPerWrite: 40, latencyMs: 5 };

export interface RoundReport {
  subWorkspaceId: string;
  /** Items answered 201. */
  created: number;
  /** Items (or whole requests) that failed, by error code (or `http <status>`). */
  failures: Record<string, number>;
  quotaExceeded: number;
  /** Metered writes the upstream refused with a 405 (whether or not retryOnQuota recovered them). */
  refused405: number;
  /**
   * retryOnQuota outcomes during the round, summed over the processes' /metrics: `recovered` means
   * a write was refused and only the 405 safety net (a 3 s wait) saved it.
   */
  quotaRetries: Record<"recovered" | "exhausted" | "abandoned", number>;
  /** Transfers sent during the writes. */
  transfers: number;
  /** pool.total + Σ child totals, before and after. */
  poolBefore: Units;
  poolAfter: Units;
  /** The brand's sub-workspace at the end. */
  child: Record<"projects" | "prompts", { used: number; drafted: number; total: number }>;
  /** `roundUpToBlock(used + drafted)` per dimension. */
  expectedTotals: Units;
  elapsedMs: number;
}

/** Everything that breaks the §4 guarantee in a round (empty = the guarantee held). */
export function violationsOf(report: RoundReport, shape: WorkloadShape): string[] {
  const violations: string[] = [];
  if (report.quotaExceeded > 0) violations.push(`${report.quotaExceeded} quotaExceeded`);
  const otherFailures = Object.entries(report.failures).filter(([code]) => code !== "quotaExceeded");
  for (const [code, count] of otherFailures) violations.push(`${count} failed with ${code}`);
  if (report.created !== shape.writes * shape.textsPerWrite)
    violations.push(`${report.created} of ${shape.writes * shape.textsPerWrite} prompts created`);
  if (report.refused405 > 0) violations.push(`${report.refused405} metered writes refused 405 upstream`);
  for (const dimension of DIMENSIONS) {
    if (report.poolAfter[dimension] !== report.poolBefore[dimension])
      violations.push(
        `${dimension}: pool+children ${report.poolBefore[dimension]} → ${report.poolAfter[dimension]}`,
      );
    if (report.child[dimension].total !== report.expectedTotals[dimension])
      violations.push(
        `${dimension}: allocation ${report.child[dimension].total} ≠ roundUpToBlock(used + drafted) ${report.expectedTotals[dimension]}`,
      );
  }
  return violations;
}

function poolSum(dump: SimulatorDump): Units {
  const sum = { projects: 0, prompts: 0 };
  for (const workspace of dump.workspaces) {
    if (workspace.id !== GOLD_PARENT_WORKSPACE_ID && workspace.parent_id !== GOLD_PARENT_WORKSPACE_ID)
      continue;
    for (const dimension of DIMENSIONS) sum[dimension] += workspace.resources[dimension].total;
  }
  return sum;
}

/** `serenity_allocation_quota_retries_total` by outcome, summed over every call site and process. */
async function quotaRetryTotals(
  processes: readonly ServeProcess[],
): Promise<Record<"recovered" | "exhausted" | "abandoned", number>> {
  const totals = { recovered: 0, exhausted: 0, abandoned: 0 };
  for (const process of processes) {
    const text = await (await fetch(`${process.url}/metrics`)).text();
    for (const line of text.split("\n")) {
      const match = /^serenity_allocation_quota_retries_total\{[^}]*outcome="(\w+)"[^}]*\} (\d+)/.exec(line);
      if (match && match[1]! in totals) totals[match[1] as keyof typeof totals] += Number(match[2]);
    }
  }
  return totals;
}

const METERED = [
  /\/v1\/workspaces\/[^/]+\/projects$/,
  /\/v3\/workspaces\/[^/]+\/projects\/[^/]+\/aio\/prompts$/,
  /\/ai_models$/,
  /\/publish$/,
];

/**
 * One round: reset the simulator to the gold pool, create a brand with a sub-workspace and a US/en
 * market tracking one model (through the first process), then fire `shape.writes` concurrent bulk
 * prompt creates of distinct texts, round-robin over `processes`.
 */
export async function runRound(
  simulatorUrl: string,
  processes: readonly ServeProcess[],
  org: { orgId: string; token: string },
  shape: WorkloadShape,
  label: string,
): Promise<RoundReport> {
  await simControl(simulatorUrl, "/reset", {});
  const brand = await api<{ id: string; subWorkspaceId?: string }>(
    processes[0]!.url,
    org.token,
    "POST",
    `/v2/orgs/${org.orgId}/brands`,
    {
      name: `Brand ${label}`,
      domain: "brand.example",
      semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
    },
  );
  if (brand.status !== 201)
    throw new Error(`brand create answered ${brand.status}: ${JSON.stringify(brand.body)}`);
  const before = await simControl<SimulatorDump>(simulatorUrl, "/dump");
  const child = before.workspaces.find((workspace) => workspace.parent_id === GOLD_PARENT_WORKSPACE_ID);
  if (!child) throw new Error("no sub-workspace was created");
  await simControl(simulatorUrl, "/settings", { latencyMs: shape.latencyMs });
  await fetch(`${simulatorUrl}/__sim/calls`, { method: "DELETE" });

  const retriesBefore = await quotaRetryTotals(processes);
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: shape.writes }, (_, write) =>
      api<{ items?: { status: number; error?: { code: string } }[]; error?: string }>(
        processes[write % processes.length]!.url,
        org.token,
        "POST",
        `/v2/orgs/${org.orgId}/brands/${brand.body.id}/serenity/prompts`,
        {
          items: Array.from({ length: shape.textsPerWrite }, (_, text) => ({
            text: `${label} write ${write} prompt ${text}`,
            geoTargetId: 2840,
            languageCode: "en",
          })),
        },
      ),
    ),
  );
  const elapsedMs = Date.now() - started;
  const retriesAfter = await quotaRetryTotals(processes);
  await simControl(simulatorUrl, "/settings", { latencyMs: 0 });

  const failures: Record<string, number> = {};
  let created = 0;
  for (const answer of answers) {
    if (!answer.body?.items) {
      const code = answer.body?.error ?? `http ${answer.status}`;
      failures[code] = (failures[code] ?? 0) + shape.textsPerWrite;
      continue;
    }
    for (const item of answer.body.items) {
      if (item.status === 201) created++;
      else {
        const code = item.error?.code ?? `status ${item.status}`;
        failures[code] = (failures[code] ?? 0) + 1;
      }
    }
  }
  const calls = await simControl<{ method: string; path: string; status: number }[]>(simulatorUrl, "/calls");
  const refused405 = calls.filter(
    (call) =>
      call.method === "POST" && call.status === 405 && METERED.some((pattern) => pattern.test(call.path)),
  ).length;
  const transfers = calls.filter(
    (call) => call.method === "POST" && call.path.startsWith(UM) && call.path.endsWith("/resources/transfer"),
  ).length;
  const after = await simControl<SimulatorDump>(simulatorUrl, "/dump");
  const finalChild = after.workspaces.find((workspace) => workspace.id === child.id)!.resources;
  const expectedTotals = {
    projects: roundUpToBlock(finalChild.projects.used + finalChild.projects.drafted, BLOCK.projects),
    prompts: roundUpToBlock(finalChild.prompts.used + finalChild.prompts.drafted, BLOCK.prompts),
  };
  return {
    subWorkspaceId: child.id,
    created,
    failures,
    quotaExceeded: failures.quotaExceeded ?? 0,
    refused405,
    quotaRetries: {
      recovered: retriesAfter.recovered - retriesBefore.recovered,
      exhausted: retriesAfter.exhausted - retriesBefore.exhausted,
      abandoned: retriesAfter.abandoned - retriesBefore.abandoned,
    },
    transfers,
    poolBefore: poolSum(before),
    poolAfter: poolSum(after),
    child: finalChild,
    expectedTotals,
    elapsedMs,
  };
}

/** The rebalancing round's shape: a hungry brand's writes against a sibling's, from two processes. */
export interface RebalanceShape {
  /** The sibling's allocation at the start (prompts), all of it slack: the pool itself is dry. */
  siblingSlack: number;
  /** The hungry brand's writes (sequential, from the first process), new texts each. */
  hungryWrites: number[];
  /** The sibling's own writes (sequential, from the second process), new texts each. */
  siblingWrites: number[];
  latencyMs: number;
  /** The simulator's `used` lags each publish by this long (0: never; spec/gateway.md §3). */
  usedLagMs?: number;
  /** …and for this many resource reads (a lag no slow machine can run out of: it counts reads). */
  usedLagReads?: number;
  /** The sibling's writes all answered before the hungry brand's begin (else both at once). */
  siblingFirst?: boolean;
}

/**
 * Demand (290) above the sibling's slack (240), so the sibling's headroom is thin for most of the
 * round and a lowering that raced one of its writes would show as a 405.
 */
export const REBALANCE_SHAPE: RebalanceShape = {
  siblingSlack: 240,
  hungryWrites: [20, 20, 20, 20, 20, 20],
  siblingWrites: [40, 40, 40, 40],
  latencyMs: 10,
};

export interface RebalanceReport {
  hungry: string;
  sibling: string;
  /** Items answered 201, per brand. */
  created: { hungry: number; sibling: number };
  failures: Record<string, number>;
  refused405: number;
  /** Rebalancing's transfers lowering the sibling, from the ledger (`rebalance` rows, applied). */
  siblingLowered: number;
  poolBefore: Units;
  poolAfter: Units;
  /** Every sub-workspace of the pool at the end. */
  children: Record<string, Record<"projects" | "prompts", { used: number; drafted: number; total: number }>>;
}

/**
 * What every rebalance round must hold, as messages (`[]`: held): the only refusal is the pool's
 * own (`orgPoolExhausted`), no metered write refused 405, the pool conserved, and no sub-workspace
 * below its `used + drafted`.
 */
export function rebalanceBreaches(report: RebalanceReport): string[] {
  const breaches = Object.keys(report.failures)
    .filter((code) => code !== "orgPoolExhausted")
    .map((code) => `refused ${code}`);
  if (report.refused405 > 0) breaches.push(`${report.refused405} metered writes refused 405`);
  if (JSON.stringify(report.poolAfter) !== JSON.stringify(report.poolBefore)) {
    breaches.push(`pool ${JSON.stringify(report.poolBefore)} -> ${JSON.stringify(report.poolAfter)}`);
  }
  for (const [id, resources] of Object.entries(report.children)) {
    for (const dimension of ["projects", "prompts"] as const) {
      const { used, drafted, total } = resources[dimension];
      if (total < used + drafted) breaches.push(`${id}.${dimension}: total ${total} < ${used + drafted}`);
    }
  }
  return breaches;
}

/**
 * The settings every multi-process allocation suite gives its `serve` processes: the simulator's
 * `used` never lags there, so a 1 ms publish window; the lock wait a hang guard on a loaded
 * machine (a round's queue of writers can outlast the 10 s default), not what is tested.
 */
export const MULTI_PROCESS_ENV = {
  SERENITY_PUBLISH_LAG_MS: "1",
  SERENITY_ALLOCATION_LOCK_TIMEOUT_MS: "120000",
} as const;

/**
 * Rebalancing racing a sibling's own writes across processes (spec/allocation.md §11): two brands
 * with a market each; the pool is made dry and the sibling holds `siblingSlack` prompts it does
 * not use yet. The hungry brand's writes (first process) can only be served by reclaiming the
 * sibling's slack, while the sibling writes into that same allocation from the second process.
 * After both sequences, the hungry brand writes once more (the sibling idle), so at least one
 * rebalance certainly happens.
 */
export async function runRebalanceRound(
  simulatorUrl: string,
  processes: readonly ServeProcess[],
  org: { orgId: string; token: string },
  shape: RebalanceShape,
  label: string,
): Promise<RebalanceReport> {
  await simControl(simulatorUrl, "/reset", {});
  const brandOf = async (name: string, market: { market: string; languageCode: string }) => {
    const created = await api<{ id: string; subWorkspaceId: string }>(
      processes[0]!.url,
      org.token,
      "POST",
      `/v2/orgs/${org.orgId}/brands`,
      {
        name: `${name} ${label}`,
        domain: `${name.toLowerCase()}.example`,
        semrushMarket: { ...market, modelIds: ["search-gpt"] },
      },
    );
    if (created.status !== 201) throw new Error(`brand create answered ${created.status}`);
    return created.body;
  };
  const hungry = await brandOf("Hungry", { market: "US", languageCode: "en" });
  const sibling = await brandOf("Sibling", { market: "US", languageCode: "en" });
  // The pool dry, the sibling's allocation all slack (set directly; the sums are read after).
  await simControl(simulatorUrl, "/quota", { workspaceId: GOLD_PARENT_WORKSPACE_ID, prompts: 0 });
  await simControl(simulatorUrl, "/quota", {
    workspaceId: sibling.subWorkspaceId,
    prompts: { total: shape.siblingSlack },
  });
  const before = await simControl<SimulatorDump>(simulatorUrl, "/dump");
  await simControl(simulatorUrl, "/settings", {
    latencyMs: shape.latencyMs,
    usedLagMs: shape.usedLagMs ?? 0,
    usedLagReads: shape.usedLagReads ?? 0,
  });
  await fetch(`${simulatorUrl}/__sim/calls`, { method: "DELETE" });

  const failures: Record<string, number> = {};
  const created = { hungry: 0, sibling: 0 };
  const write = async (
    process: ServeProcess,
    brandId: string,
    who: "hungry" | "sibling",
    n: number,
    tag: string,
  ) => {
    const answer = await api<{ items?: { status: number; error?: { code: string } }[]; error?: string }>(
      process.url,
      org.token,
      "POST",
      `/v2/orgs/${org.orgId}/brands/${brandId}/serenity/prompts`,
      {
        items: Array.from({ length: n }, (_, text) => ({
          text: `${label} ${who} ${tag} prompt ${text}`,
          geoTargetId: 2840,
          languageCode: "en",
        })),
      },
    );
    if (!answer.body?.items) {
      const code = answer.body?.error ?? `http ${answer.status}`;
      failures[code] = (failures[code] ?? 0) + n;
      return;
    }
    for (const item of answer.body.items) {
      if (item.status === 201) created[who]++;
      else {
        const code = item.error?.code ?? `status ${item.status}`;
        failures[code] = (failures[code] ?? 0) + 1;
      }
    }
  };
  const sequence = async (
    process: ServeProcess,
    brandId: string,
    who: "hungry" | "sibling",
    sizes: number[],
  ) => {
    for (const [index, n] of sizes.entries()) await write(process, brandId, who, n, `w${index}`);
  };
  const hungryWrites = () => sequence(processes[0]!, hungry.id, "hungry", shape.hungryWrites);
  const siblingWrites = () =>
    sequence(processes[1 % processes.length]!, sibling.id, "sibling", shape.siblingWrites);
  if (shape.siblingFirst) {
    await siblingWrites();
    await hungryWrites();
  } else {
    await Promise.all([hungryWrites(), siblingWrites()]);
  }
  await write(processes[0]!, hungry.id, "hungry", 10, "last");
  await simControl(simulatorUrl, "/settings", { latencyMs: 0, usedLagMs: 0, usedLagReads: 0 });

  const calls = await simControl<{ method: string; path: string; status: number }[]>(simulatorUrl, "/calls");
  const refused405 = calls.filter(
    (call) =>
      call.method === "POST" && call.status === 405 && METERED.some((pattern) => pattern.test(call.path)),
  ).length;
  const ledger = await api<{ items: { subWorkspaceId: string; reason: string; outcome: string }[] }>(
    processes[0]!.url,
    org.token,
    "GET",
    `/v2/orgs/${org.orgId}/serenity/allocation-ledger?limit=200`,
  );
  const after = await simControl<SimulatorDump>(simulatorUrl, "/dump");
  const children: RebalanceReport["children"] = {};
  for (const workspace of after.workspaces) {
    if (workspace.parent_id === GOLD_PARENT_WORKSPACE_ID) children[workspace.id] = workspace.resources;
  }
  return {
    hungry: hungry.subWorkspaceId,
    sibling: sibling.subWorkspaceId,
    created,
    failures,
    refused405,
    siblingLowered: ledger.body.items.filter(
      (row) =>
        row.subWorkspaceId === sibling.subWorkspaceId &&
        row.reason === "rebalance" &&
        row.outcome === "applied",
    ).length,
    poolBefore: poolSum(before),
    poolAfter: poolSum(after),
    children,
  };
}

export interface InFlightReport {
  /** The sibling's write (started first, its create held upstream): items created / failed. */
  sibling: { created: number; failures: Record<string, number> };
  /** The hungry brand's write, sent while the sibling's create was held. */
  hungry: { created: number; failures: Record<string, number> };
  refused405: number;
  /** The hungry brand had its answer while the sibling's create was still held: the race was run. */
  overlapped: boolean;
  poolBefore: Units;
  poolAfter: Units;
  children: RebalanceReport["children"];
}

/**
 * The serve processes give an upstream call 15 s (DEFAULT_GATEWAY_TIMEOUT_MS): a held create is let
 * go before that, answered or not, so it never turns into the sibling's own 504.
 */
const LONGEST_HOLD_MS = 12_000;

/**
 * The race rebalancing must never win: a sibling's metered write is in flight (its prompt create
 * held upstream until the hungry brand has its answer) when a hungry brand, from the other process,
 * needs the very slack that write is about to stage. Lowering the sibling without its lock would
 * turn the sibling's create into a 405; under the sibling's lock, the hungry brand skips (or waits
 * for) the sibling instead.
 */
export async function runRebalanceInFlightRound(
  sim: TestSimulator,
  processes: readonly ServeProcess[],
  org: { orgId: string; token: string },
  label: string,
): Promise<InFlightReport> {
  const simulatorUrl = sim.url;
  await simControl(simulatorUrl, "/reset", {});
  const brandOf = async (name: string) => {
    const created = await api<{ id: string; subWorkspaceId: string }>(
      processes[0]!.url,
      org.token,
      "POST",
      `/v2/orgs/${org.orgId}/brands`,
      {
        name: `${name} ${label}`,
        domain: `${name.toLowerCase()}.example`,
        semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
      },
    );
    if (created.status !== 201) throw new Error(`brand create answered ${created.status}`);
    return created.body;
  };
  const hungry = await brandOf("Hungry");
  const sibling = await brandOf("Sibling");
  await simControl(simulatorUrl, "/quota", { workspaceId: GOLD_PARENT_WORKSPACE_ID, prompts: 0 });
  await simControl(simulatorUrl, "/quota", { workspaceId: sibling.subWorkspaceId, prompts: { total: 100 } });
  const before = await simControl<SimulatorDump>(simulatorUrl, "/dump");
  await simControl(simulatorUrl, "/settings", { latencyMs: 5 });
  await simControl(simulatorUrl, "/faults", {
    match: {
      method: "POST",
      pathPattern: `/workspaces/${sibling.subWorkspaceId}/projects/[^/]+/aio/prompts$`,
    },
    action: { delayMs: HELD_UNTIL_RELEASED_MS },
    times: 1,
  });
  await fetch(`${simulatorUrl}/__sim/calls`, { method: "DELETE" });

  const bulk = (process: ServeProcess, brandId: string, who: string, n: number) =>
    api<{ items?: { status: number; error?: { code: string } }[]; error?: string }>(
      process.url,
      org.token,
      "POST",
      `/v2/orgs/${org.orgId}/brands/${brandId}/serenity/prompts`,
      {
        items: Array.from({ length: n }, (_, text) => ({
          text: `${label} ${who} prompt ${text}`,
          geoTargetId: 2840,
          languageCode: "en",
        })),
      },
    );
  const outcome = (answer: Awaited<ReturnType<typeof bulk>>, n: number) => {
    const failures: Record<string, number> = {};
    let created = 0;
    if (!answer.body?.items) failures[answer.body?.error ?? `http ${answer.status}`] = n;
    for (const item of answer.body?.items ?? []) {
      if (item.status === 201) created++;
      else
        failures[item.error?.code ?? `status ${item.status}`] = (failures[item.error?.code ?? ""] ?? 0) + 1;
    }
    return { created, failures };
  };

  // The sibling stages 80 of its 100 units under its lock; its create is then held upstream.
  const siblingWrite = bulk(processes[1 % processes.length]!, sibling.id, "sibling", 80);
  await waitFor(() => sim.held() === 1, { what: "the sibling's create held upstream" });
  // The hungry brand needs 60: only the sibling's slack (as read before its create lands) has it.
  const hungryWrite = track(bulk(processes[0]!, hungry.id, "hungry", 60));
  await waitFor(() => hungryWrite.settled, { timeoutMs: LONGEST_HOLD_MS }).catch(() => {});
  const overlapped = hungryWrite.settled;
  sim.release();
  const siblingAnswer = await siblingWrite;
  await waitFor(() => hungryWrite.settled, { what: "the hungry brand's answer" });
  if (hungryWrite.error) throw hungryWrite.error;
  const hungryAnswer = hungryWrite.value!;
  await simControl(simulatorUrl, "/settings", { latencyMs: 0 });

  const calls = await simControl<{ method: string; path: string; status: number }[]>(simulatorUrl, "/calls");
  const after = await simControl<SimulatorDump>(simulatorUrl, "/dump");
  const children: RebalanceReport["children"] = {};
  for (const workspace of after.workspaces) {
    if (workspace.parent_id === GOLD_PARENT_WORKSPACE_ID) children[workspace.id] = workspace.resources;
  }
  return {
    sibling: outcome(siblingAnswer, 80),
    hungry: outcome(hungryAnswer, 60),
    refused405: calls.filter(
      (call) =>
        call.method === "POST" && call.status === 405 && METERED.some((pattern) => pattern.test(call.path)),
    ).length,
    overlapped,
    poolBefore: poolSum(before),
    poolAfter: poolSum(after),
    children,
  };
}
