/**
 * What the allocation guard costs a metered request when headroom is available (SPEC §7: at most 1
 * extra upstream call per metered request, < 2 ms added server CPU at the median).
 *
 *   npx tsx bench/allocation-guard-overhead.ts [--requests 60] [--latencies 0,20]
 *
 * The request: a bulk prompt create of 1 new text into an existing US/en market (one model) of a
 * brand whose sub-workspace was carved 700 prompts up front, so the guard never tops up. Flag off
 * and flag on alternate request by request (SERENITY_DYNAMIC_ALLOCATION is read per request), so
 * drift hits both alike. Upstream calls are counted from the simulator's call log around each
 * request; server CPU is process.cpuUsage() around each request — the simulator runs in its own
 * process (`serenity simulator`), so its CPU is not counted.
 *
 * Then, per latency, where the guard's CPU goes: the resources read alone, the allocation lock alone
 * (lease acquire + release, no work), and a whole guarded section with a no-op write (lock + read
 * + plan), each measured in isolation the same number of times.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import { createAllocationLock } from "../src/allocation/createAllocationLock.ts";
import { systemClock } from "../src/domain/clock.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import {
  type InProcessApi,
  inProcessApi,
  logger,
  median,
  printTable,
  scratchDatabase,
  simControl,
  simulatorProcess,
} from "./allocation-support.ts";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "60" },
    latencies: { type: "string", default: "0,20" },
  },
});
const REQUESTS = Number(args.requests);
const LATENCIES = args.latencies.split(",").map(Number);
const WARMUP = 5;

interface Sample {
  calls: number;
  reads: number;
  transfers: number;
  cpuMs: number;
  wallMs: number;
}

async function main() {
  const database = await scratchDatabase("guard_overhead");
  const sim = await simulatorProcess("gold");
  const api = await inProcessApi(database.url, sim.url);
  const rows: string[][] = [];
  const components: string[][] = [];
  try {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    const org = await api.call("POST", "/v2/orgs", {
      name: "Guard overhead",
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
    });
    const brand = await api.call("POST", `/v2/orgs/${org.body.id}/brands`, {
      name: "Overhead",
      domain: "overhead.example",
      semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
    });
    if (brand.status !== 201) throw new Error(`brand create answered ${brand.status}`);
    const dump = await simControl<{ workspaces: { id: string; parent_id: string | null }[] }>(
      sim.url,
      "/dump",
    );
    const subWorkspace = dump.workspaces.find((w) => w.parent_id === GOLD_PARENT_WORKSPACE_ID)!.id;
    // Headroom for every request of the run: the guard's hot path only.
    await api.gateway.users.transferResources(api.token, subWorkspace, { prompts: 700 });
    const promptsUrl = `/v2/orgs/${org.body.id}/brands/${brand.body.id}/serenity/prompts`;

    let counter = 0;
    let target = { geoTargetId: 2840, languageCode: "en" };
    const oneRequest = async (flag: "true" | "false"): Promise<Sample> => {
      process.env.SERENITY_DYNAMIC_ALLOCATION = flag;
      await simControl(sim.url, "/calls", undefined, "DELETE");
      const cpu = process.cpuUsage();
      const started = performance.now();
      const answer = await api.call("POST", promptsUrl, {
        items: [
          {
            text: `overhead prompt ${++counter}`,
            geoTargetId: target.geoTargetId,
            languageCode: target.languageCode,
          },
        ],
      });
      const wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      if (answer.status !== 201)
        throw new Error(`bulk answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      const calls = await simControl<{ method: string; path: string }[]>(sim.url, "/calls");
      return {
        calls: calls.length,
        reads: calls.filter((c) => c.method === "GET" && c.path.endsWith("/resources")).length,
        transfers: calls.filter((c) => c.path.endsWith("/resources/transfer")).length,
        cpuMs: (used.user + used.system) / 1000,
        wallMs,
      };
    };

    const spareMarkets = [
      { market: "FR", languageCode: "fr", geoTargetId: 2250 },
      { market: "DE", languageCode: "de", geoTargetId: 2276 },
      { market: "ES", languageCode: "es", geoTargetId: 2724 },
    ];
    for (const [index, latencyMs] of LATENCIES.entries()) {
      // A fresh market per latency: its text listing stays one page, the same for both contenders.
      const market = spareMarkets[index % spareMarkets.length]!;
      process.env.SERENITY_DYNAMIC_ALLOCATION = "true"; // the market's project needs a top-up
      const created = await api.call(
        "POST",
        `/v2/orgs/${org.body.id}/brands/${brand.body.id}/serenity/markets`,
        {
          market: market.market,
          languageCode: market.languageCode,
          modelIds: ["search-gpt"],
        },
      );
      if (created.status !== 201)
        throw new Error(`market create answered ${created.status}: ${JSON.stringify(created.body)}`);
      target = market;
      await simControl(sim.url, "/settings", { latencyMs });
      for (let i = 0; i < WARMUP; i++) {
        await oneRequest("false");
        await oneRequest("true");
      }
      const off: Sample[] = [];
      const on: Sample[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        // Alternate the order too, so neither contender always runs on a warm connection.
        if (i % 2 === 0) {
          off.push(await oneRequest("false"));
          on.push(await oneRequest("true"));
        } else {
          on.push(await oneRequest("true"));
          off.push(await oneRequest("false"));
        }
      }
      const callsOff = median(off.map((s) => s.calls));
      const callsOn = median(on.map((s) => s.calls));
      const readsOn = new Set(on.map((s) => s.reads));
      const transfersOn = on.reduce((sum, s) => sum + s.transfers, 0);
      components.push([
        `${latencyMs}`,
        ...(await measureComponents(api, subWorkspace, org.body.id, brand.body.id)),
      ]);
      const cpuOff = median(off.map((s) => s.cpuMs));
      const cpuOn = median(on.map((s) => s.cpuMs));
      const wallOff = median(off.map((s) => s.wallMs));
      const wallOn = median(on.map((s) => s.wallMs));
      rows.push([
        `${latencyMs}`,
        `${callsOff}`,
        `${callsOn}`,
        `${callsOn - callsOff}`,
        [...readsOn].join("/"),
        `${transfersOn}`,
        cpuOff.toFixed(2),
        cpuOn.toFixed(2),
        (cpuOn - cpuOff).toFixed(2),
        wallOff.toFixed(1),
        wallOn.toFixed(1),
        (wallOn / wallOff).toFixed(2),
      ]);
    }
  } finally {
    await api.close();
    await sim.stop();
    await database.drop();
  }
  console.log(
    `allocation guard overhead: bulk create of 1 new text (1 model), headroom available, ${REQUESTS} requests per contender\n`,
  );
  printTable(
    [
      "latency (ms)",
      "calls off",
      "calls on",
      "extra calls",
      "reads on",
      "transfers on",
      "cpu off (ms)",
      "cpu on (ms)",
      "added cpu (ms)",
      "wall off (ms)",
      "wall on (ms)",
      "wall ratio",
    ],
    rows,
  );
  console.log(`\nwhere the guard's CPU goes (medians of ${REQUESTS * 2} runs each, in isolation)\n`);
  printTable(
    [
      "latency (ms)",
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

/** CPU and wall medians of a resources read, a lock acquire + release, and a no-op guarded section. */
async function measureComponents(
  api: InProcessApi,
  subWorkspaceId: string,
  orgId: string,
  brandId: string,
): Promise<string[]> {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const lock = createAllocationLock({ db: api.db, clock: systemClock, events: api.events, logger });
  const guard = () =>
    api.services.allocation.guard({
      orgId,
      brandId,
      subWorkspaceId,
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
      requestId: null,
      bearer: api.token,
      flat: false,
    });
  const contenders: Record<string, () => Promise<unknown>> = {
    read: () => api.gateway.users.getResources(api.token, subWorkspaceId),
    lock: () => lock.withLock(subWorkspaceId, async () => undefined),
    section: () => guard().section({ prompts: 1 }, (write) => write("bench", async () => undefined)),
  };
  const cpu: Record<string, number[]> = { read: [], lock: [], section: [] };
  const wall: Record<string, number[]> = { read: [], lock: [], section: [] };
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
  const names = ["read", "lock", "section"];
  return [
    ...names.map((name) => median(cpu[name]!).toFixed(2)),
    ...names.map((name) => median(wall[name]!).toFixed(2)),
  ];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
