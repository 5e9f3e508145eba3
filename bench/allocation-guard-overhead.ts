/**
 * The metered write's critical path and what the allocation guard costs it (SPEC §7: at most 1
 * extra upstream call per metered request, < 2 ms added server CPU), today's code side by side
 * with an earlier revision, in ONE run.
 *
 *   npx tsx bench/allocation-guard-overhead.ts [--requests 60] [--bulk-requests 8]
 *     [--latencies 0,20] [--before 2e31777]
 *
 * `--before` names the revision to compare with (default: 2e31777, the code before issue 38, the
 * base its hot-path and guard-CPU targets are measured against; the earlier default b98aa65, the
 * code before the critical-path work, still runs when named). It is checked out into a temporary
 * `git worktree` (its node_modules linked to ours) and its own `bench/allocation-support.ts`
 * builds its API, in this same process: both contenders run against the same simulator child
 * process (`serenity simulator`, so its CPU is not counted), each on its own scratch database,
 * request by request in rotating order, so drift hits all alike.
 *
 * The requests: a bulk prompt create of 1 new text, and one of 500 new texts, into an existing
 * one-model market of a brand whose sub-workspace has ample headroom (the guard's hot path:
 * "transfers" proves it), with SERENITY_DYNAMIC_ALLOCATION off and on (read per request). The 500
 * created texts are deleted straight upstream after each request (not measured), so every request
 * sees the same project. Upstream calls come from the simulator's call log around each request;
 * server CPU is process.cpuUsage() around it. Before the measured requests each market gets one
 * 1-text request per flag (steady state: what a contender remembers, it has learned).
 *
 * Then, per latency and contender, where the guard's CPU goes: a resources read alone, the
 * allocation lock alone (lease acquire + release), and a whole guarded section with a no-op write
 * (lock + read + plan), each measured in isolation the same number of times.
 *
 * The unmetered row (spec/allocation.md §13): today's code also runs the same 1-text request on a
 * brand of an org whose parent meters nothing (a subscription of 2 projects and 100 prompts, the
 * brand's sub-workspace at 0 / 0), flag off and on, in the same rotating rounds as the others —
 * its calls and CPU with the flag on must equal the flag off — and its guarded no-op section alone,
 * flag off against flag on, measured the same way.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import type * as CreateAllocationLock from "../src/allocation/createAllocationLock.ts";
import type * as Clock from "../src/domain/clock.ts";
import type { MeteredWriteGuardFactory } from "../src/domain/meteredWrites.ts";
import type * as Logger from "../src/observability/logger.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import {
  type InProcessApi,
  median,
  printTable,
  type ScratchDatabase,
  simControl,
  simulatorProcess,
} from "./allocation-support.ts";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "60" },
    "bulk-requests": { type: "string", default: "8" },
    latencies: { type: "string", default: "0,20" },
    before: { type: "string", default: "2e31777" },
  },
});
const REQUESTS = Number(args.requests);
const BULK_REQUESTS = Number(args["bulk-requests"]);
const LATENCIES = args.latencies.split(",").map(Number);
const WARMUP = 5;
const FLAGS = ["false", "true"] as const;
type Flag = (typeof FLAGS)[number];

interface Sample {
  calls: number;
  reads: number;
  transfers: number;
  cpuMs: number;
  wallMs: number;
}

/** What a contender's own tree provides (loaded from its root). */
interface Support {
  scratchDatabase(prefix: string): Promise<ScratchDatabase>;
  inProcessApi(databaseUrl: string, simulatorUrl: string): Promise<InProcessApi>;
}

interface Contender {
  name: "before" | "after" | "unmetered";
  root: string;
  database: ScratchDatabase;
  api: InProcessApi;
  orgId: string;
  brandId: string;
  subWorkspaceId: string;
  /** Per latency: the market of the 1-text requests and the market of the 500-text requests. */
  markets: Map<number, { one: MarketTarget; bulk: MarketTarget }>;
  samples: Map<string, Sample[]>;
}

interface MarketTarget {
  geoTargetId: number;
  languageCode: string;
  workspaceId: string;
  projectId: string;
}

const SPARE_MARKETS = [
  { market: "FR", languageCode: "fr", geoTargetId: 2250 },
  { market: "DE", languageCode: "de", geoTargetId: 2276 },
  { market: "ES", languageCode: "es", geoTargetId: 2724 },
  { market: "IT", languageCode: "it", geoTargetId: 2380 },
  { market: "GB", languageCode: "en", geoTargetId: 2826 },
  { market: "NL", languageCode: "nl", geoTargetId: 2528 },
];

let counter = 0;

async function checkoutBefore(ref: string): Promise<{ root: string; remove(): void }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-before-"));
  execFileSync("git", ["worktree", "add", "--detach", root, ref], { stdio: "ignore" });
  await fs.symlink(path.resolve("node_modules"), path.join(root, "node_modules"));
  return {
    root,
    remove: () => execFileSync("git", ["worktree", "remove", "--force", root], { stdio: "ignore" }),
  };
}

async function contender(name: Contender["name"], root: string, simUrl: string): Promise<Contender> {
  const support = (await import(
    pathToFileURL(path.join(root, "bench/allocation-support.ts")).href
  )) as Support;
  const database = await support.scratchDatabase(`guard_${name}`);
  const api = await support.inProcessApi(database.url, simUrl);
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const org = await api.call("POST", "/v2/orgs", {
    name: `Guard overhead ${name}`,
    parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
  });
  const brand = await api.call("POST", `/v2/orgs/${org.body.id}/brands`, {
    name: `Zephyr ${name}`,
    domain: `${name}.example`,
    semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
  });
  if (brand.status !== 201) throw new Error(`${name}: brand create answered ${brand.status}`);
  const subWorkspaceId = brand.body.subWorkspaceId as string;
  // Headroom for every request of the run: the guard's hot path only.
  await simControl(simUrl, "/quota", { workspaceId: subWorkspaceId, projects: 100, prompts: 10_000_000 });
  return {
    name,
    root,
    database,
    api,
    orgId: org.body.id,
    brandId: brand.body.id,
    subWorkspaceId,
    markets: new Map(),
    samples: new Map(),
  };
}

/**
 * Today's API again (the "after" contender's, same database), for an org on a parent that meters
 * nothing: its creation reads the parent's metering, so every write of its brand passes through.
 */
async function unmeteredContender(after: Contender, simUrl: string): Promise<Contender> {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const parent = await simControl<{ id: string }>(simUrl, "/parents", {
    title: "Unmetered parent",
    metered: false,
    projects: 2,
    prompts: 100,
  });
  const org = await after.api.call("POST", "/v2/orgs", {
    name: "Guard overhead unmetered",
    parentWorkspaceId: parent.id,
  });
  const brand = await after.api.call("POST", `/v2/orgs/${org.body.id}/brands`, {
    name: "Zephyr unmetered",
    domain: "unmetered.example",
    semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
  });
  if (brand.status !== 201) throw new Error(`unmetered: brand create answered ${brand.status}`);
  const view = await after.api.call("GET", `/v2/orgs/${org.body.id}/serenity/resources`);
  if (view.body.metering?.state !== "unmetered")
    throw new Error("unmetered: the org's metering was not learned");
  return {
    ...after,
    name: "unmetered",
    orgId: org.body.id,
    brandId: brand.body.id,
    subWorkspaceId: brand.body.subWorkspaceId as string,
    markets: new Map(),
    samples: new Map(),
  };
}

async function createMarket(c: Contender, spare: (typeof SPARE_MARKETS)[number]): Promise<MarketTarget> {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const created = await c.api.call("POST", `/v2/orgs/${c.orgId}/brands/${c.brandId}/serenity/markets`, {
    market: spare.market,
    languageCode: spare.languageCode,
    modelIds: ["search-gpt"],
  });
  if (created.status !== 201) throw new Error(`${c.name}: market create answered ${created.status}`);
  return {
    geoTargetId: spare.geoTargetId,
    languageCode: spare.languageCode,
    workspaceId: c.subWorkspaceId,
    projectId: created.body.market.projectId,
  };
}

/** One bulk create of `texts` new texts; the created ids are deleted upstream afterwards when `cleanUp`. */
async function bulk(
  c: Contender,
  simUrl: string,
  target: MarketTarget,
  texts: number,
  flag: Flag,
  cleanUp: boolean,
): Promise<Sample> {
  process.env.SERENITY_DYNAMIC_ALLOCATION = flag;
  await simControl(simUrl, "/calls", undefined, "DELETE");
  const items = Array.from({ length: texts }, () => ({
    text: `overhead prompt ${++counter}`,
    geoTargetId: target.geoTargetId,
    languageCode: target.languageCode,
  }));
  const cpu = process.cpuUsage();
  const started = performance.now();
  const answer = await c.api.call("POST", `/v2/orgs/${c.orgId}/brands/${c.brandId}/serenity/prompts`, {
    items,
  });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (answer.status !== 201)
    throw new Error(
      `${c.name}: bulk answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`,
    );
  const calls = await simControl<{ method: string; path: string }[]>(simUrl, "/calls");
  if (cleanUp) {
    const ids = (answer.body.items as { id: string }[]).map((item) => item.id);
    await c.api.gateway.projects.deletePrompts(c.api.token, target.workspaceId, target.projectId, ids);
    await c.api.gateway.projects.publishProject(c.api.token, target.workspaceId, target.projectId);
  }
  return {
    calls: calls.length,
    reads: calls.filter((call) => call.method === "GET" && call.path.endsWith("/resources")).length,
    transfers: calls.filter((call) => call.path.endsWith("/resources/transfer")).length,
    cpuMs: (used.user + used.system) / 1000,
    wallMs,
  };
}

function record(c: Contender, key: string, sample: Sample): void {
  c.samples.set(key, [...(c.samples.get(key) ?? []), sample]);
}

/** Runs `rounds` rounds of every (contender, flag) pair, the order rotating round by round. */
async function rounds(
  contenders: Contender[],
  count: number,
  run: (c: Contender, flag: Flag) => Promise<Sample>,
  keep: (c: Contender, flag: Flag, sample: Sample) => void,
): Promise<void> {
  const pairs = contenders.flatMap((c) => FLAGS.map((flag) => [c, flag] as const));
  for (let round = 0; round < count; round++) {
    for (let i = 0; i < pairs.length; i++) {
      const [c, flag] = pairs[(i + round) % pairs.length]!;
      keep(c, flag, await run(c, flag));
    }
  }
}

/** CPU and wall medians of a resources read, a lock acquire + release, and a no-op guarded section. */
async function measureComponents(c: Contender): Promise<Record<string, { cpu: number; wall: number }>> {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const load = <T>(module: string) => import(pathToFileURL(path.join(c.root, module)).href) as Promise<T>;
  const { createAllocationLock } = await load<typeof CreateAllocationLock>(
    "src/allocation/createAllocationLock.ts",
  );
  const { systemClock } = await load<typeof Clock>("src/domain/clock.ts");
  const { createLogger } = await load<typeof Logger>("src/observability/logger.ts");
  const logger = createLogger({ level: "error" });
  const { api } = c;
  const lock = createAllocationLock({ db: api.db, clock: systemClock, events: api.events, logger });
  // The guard as the composition root hands it out (`meteredWrites`; `guard` in older revisions).
  const allocation = api.services.allocation as Partial<
    Record<"meteredWrites" | "guard", MeteredWriteGuardFactory>
  >;
  // Bound: an older revision's `guard` is a method of the service, not an arrow property.
  const factory = allocation.meteredWrites ?? allocation.guard!.bind(allocation);
  const guard = () =>
    factory({
      orgId: c.orgId,
      brandId: c.brandId,
      subWorkspaceId: c.subWorkspaceId,
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
      requestId: null,
      bearer: api.token,
      flat: false,
      metering: c.name === "unmetered" ? "unmetered" : "metered",
    });
  const section = () => {
    const g = guard() as ReturnType<typeof guard> & { writeSection?: ReturnType<typeof guard>["section"] };
    // The same section under either revision's name (`writeSection` in older revisions).
    const open = g.writeSection ?? g.section;
    return open({ prompts: 1 }, (write) => write("bench", async () => undefined));
  };
  const withFlag = (flag: Flag) => async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = flag;
    try {
      return await section();
    } finally {
      process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    }
  };
  // An unmetered org's section: flag off against flag on (both pass through: no lock, no read).
  const contenders: Record<string, () => Promise<unknown>> =
    c.name === "unmetered"
      ? { sectionOff: withFlag("false"), sectionOn: withFlag("true") }
      : {
          read: () => api.gateway.users.getResources(api.token, c.subWorkspaceId),
          lock: () => lock.withLock(c.subWorkspaceId, async () => undefined),
          section,
        };
  const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  const wall: Record<string, number[]> = Object.fromEntries(
    Object.keys(contenders).map((name) => [name, []]),
  );
  for (let i = 0; i < WARMUP; i++) for (const run of Object.values(contenders)) await run();
  for (let i = 0; i < REQUESTS * 2; i++) {
    for (const [name, run] of Object.entries(contenders)) {
      const before = process.cpuUsage();
      const started = performance.now();
      await run();
      wall[name]!.push(performance.now() - started);
      const used = process.cpuUsage(before);
      cpu[name]!.push((used.user + used.system) / 1000);
    }
  }
  return Object.fromEntries(
    Object.keys(contenders).map((name) => [name, { cpu: median(cpu[name]!), wall: median(wall[name]!) }]),
  );
}

async function main() {
  const before = await checkoutBefore(args.before);
  const sim = await simulatorProcess("gold");
  const contenders: Contender[] = [];
  let unmetered!: Contender;
  const components: string[][] = [];
  const unmeteredSections: string[][] = [];
  try {
    contenders.push(await contender("before", before.root, sim.url));
    contenders.push(await contender("after", path.resolve("."), sim.url));
    unmetered = await unmeteredContender(contenders[1]!, sim.url);
    for (const [index, latencyMs] of LATENCIES.entries()) {
      for (const c of [...contenders, unmetered]) {
        c.markets.set(latencyMs, {
          one: await createMarket(c, SPARE_MARKETS[(2 * index) % SPARE_MARKETS.length]!),
          bulk: await createMarket(c, SPARE_MARKETS[(2 * index + 1) % SPARE_MARKETS.length]!),
        });
      }
      await simControl(sim.url, "/settings", { latencyMs });
      const markets = (c: Contender) => c.markets.get(latencyMs)!;
      // Steady state: each market written once per flag before anything is measured.
      // The unmetered org's 1-text requests go in the same rotation as the others'.
      const withUnmetered = [...contenders, unmetered];
      await rounds(
        withUnmetered,
        WARMUP,
        (c, flag) => bulk(c, sim.url, markets(c).one, 1, flag, false),
        () => {},
      );
      await rounds(
        contenders,
        1,
        (c, flag) => bulk(c, sim.url, markets(c).bulk, 1, flag, false),
        () => {},
      );
      await rounds(
        withUnmetered,
        REQUESTS,
        (c, flag) => bulk(c, sim.url, markets(c).one, 1, flag, false),
        (c, flag, sample) => record(c, `${latencyMs}:1:${flag}`, sample),
      );
      await rounds(
        contenders,
        BULK_REQUESTS,
        (c, flag) => bulk(c, sim.url, markets(c).bulk, 500, flag, true),
        (c, flag, sample) => record(c, `${latencyMs}:500:${flag}`, sample),
      );
      const unmeteredParts = await measureComponents(unmetered);
      unmeteredSections.push([
        `${latencyMs}`,
        ...["sectionOff", "sectionOn"].map((name) => unmeteredParts[name]!.cpu.toFixed(3)),
        ...["sectionOff", "sectionOn"].map((name) => unmeteredParts[name]!.wall.toFixed(3)),
      ]);
      for (const c of contenders) {
        const parts = await measureComponents(c);
        components.push([
          `${latencyMs}`,
          c.name,
          ...["read", "lock", "section"].map((name) => parts[name]!.cpu.toFixed(2)),
          ...["read", "lock", "section"].map((name) => parts[name]!.wall.toFixed(2)),
        ]);
      }
    }
  } finally {
    for (const c of contenders) {
      await c.api.close();
      await c.database.drop();
    }
    await sim.stop();
    before.remove();
  }

  const [was, now] = contenders as [Contender, Contender];
  const stat = (c: Contender, key: string, pick: (s: Sample) => number) =>
    median(c.samples.get(key)!.map(pick));
  const callsRows: string[][] = [];
  const cpuRows: string[][] = [];
  for (const latencyMs of LATENCIES) {
    for (const texts of [1, 500]) {
      const key = (flag: Flag) => `${latencyMs}:${texts}:${flag}`;
      const cell = (c: Contender, flag: Flag, pick: (s: Sample) => number, digits = 0) =>
        stat(c, key(flag), pick).toFixed(digits);
      const change = (flag: Flag) =>
        `${((100 * stat(now, key(flag), (s) => s.wallMs)) / stat(was, key(flag), (s) => s.wallMs) - 100).toFixed(0)} %`;
      callsRows.push([
        `${latencyMs}`,
        `${texts}`,
        `${cell(was, "false", (s) => s.calls)} / ${cell(was, "true", (s) => s.calls)}`,
        `${cell(now, "false", (s) => s.calls)} / ${cell(now, "true", (s) => s.calls)}`,
        `${cell(was, "true", (s) => s.reads)} / ${cell(now, "true", (s) => s.reads)}`,
        `${[was, now].map((c) => c.samples.get(key("true"))!.reduce((sum, s) => sum + s.transfers, 0)).join(" / ")}`,
        `${cell(was, "false", (s) => s.wallMs, 1)} / ${cell(was, "true", (s) => s.wallMs, 1)}`,
        `${cell(now, "false", (s) => s.wallMs, 1)} / ${cell(now, "true", (s) => s.wallMs, 1)}`,
        `${change("false")} / ${change("true")}`,
      ]);
      cpuRows.push([
        `${latencyMs}`,
        `${texts}`,
        `${cell(was, "false", (s) => s.cpuMs, 2)} / ${cell(was, "true", (s) => s.cpuMs, 2)}`,
        `${cell(now, "false", (s) => s.cpuMs, 2)} / ${cell(now, "true", (s) => s.cpuMs, 2)}`,
        `${(stat(was, key("true"), (s) => s.cpuMs) - stat(was, key("false"), (s) => s.cpuMs)).toFixed(2)} / ${(stat(now, key("true"), (s) => s.cpuMs) - stat(now, key("false"), (s) => s.cpuMs)).toFixed(2)}`,
      ]);
    }
  }
  console.log(
    `metered write critical path: bulk create into an existing one-model market, headroom available; before = ${args.before}, after = this tree; ${REQUESTS} (1 text) / ${BULK_REQUESTS} (500 texts) requests per contender and flag; medians\n`,
  );
  printTable(
    [
      "latency (ms)",
      "texts",
      "calls before (off / on)",
      "calls after (off / on)",
      "resources reads on (before / after)",
      "transfers on (before / after)",
      "wall before (off / on, ms)",
      "wall after (off / on, ms)",
      "wall change (off / on)",
    ],
    callsRows,
  );
  console.log("\nserver CPU per request (ms)\n");
  printTable(
    [
      "latency (ms)",
      "texts",
      "cpu before (off / on)",
      "cpu after (off / on)",
      "added by the guard (before / after)",
    ],
    cpuRows,
  );
  console.log(
    "\nunmetered org (spec/allocation.md §13), this tree: the same 1-text request on a brand of an org whose parent meters nothing\n",
  );
  printTable(
    [
      "latency (ms)",
      "calls (off / on)",
      "resources reads on",
      "transfers on",
      "cpu (off / on, ms)",
      "added by the guard (ms)",
      "wall (off / on, ms)",
    ],
    LATENCIES.map((latencyMs) => {
      const key = (flag: Flag) => `${latencyMs}:1:${flag}`;
      const both = (pick: (s: Sample) => number, digits = 0) =>
        FLAGS.map((flag) => stat(unmetered, key(flag), pick).toFixed(digits)).join(" / ");
      return [
        `${latencyMs}`,
        both((s) => s.calls),
        stat(unmetered, key("true"), (s) => s.reads).toFixed(0),
        `${unmetered.samples.get(key("true"))!.reduce((sum, s) => sum + s.transfers, 0)}`,
        both((s) => s.cpuMs, 2),
        (
          stat(unmetered, key("true"), (s) => s.cpuMs) - stat(unmetered, key("false"), (s) => s.cpuMs)
        ).toFixed(2),
        both((s) => s.wallMs, 1),
      ];
    }),
  );
  console.log(`\nthe unmetered org's guarded no-op section alone (medians of ${REQUESTS * 2} runs each)\n`);
  printTable(
    [
      "latency (ms)",
      "section cpu off (ms)",
      "section cpu on (ms)",
      "section wall off (ms)",
      "section wall on (ms)",
    ],
    unmeteredSections,
  );
  console.log(`\nwhere the guard's CPU goes (medians of ${REQUESTS * 2} runs each, in isolation)\n`);
  printTable(
    [
      "latency (ms)",
      "code",
      "read cpu (ms)",
      "lock cpu (ms)",
      "section cpu (ms)",
      "read wall (ms)",
      "lock wall (ms)",
      "section wall (ms)",
    ],
    components,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
