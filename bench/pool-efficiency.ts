/**
 * Pool efficiency (SPEC §7, spec/allocation.md §11): a deterministic multi-brand trace — brands
 * arriving with a first market, adding markets, prompts and models, deleting markets — replayed
 * against a 13-project / 800-prompt pool under five policies, side by side in one run:
 *
 *  (a) JIT, for real, three ways: every operation goes through our API in-process with
 *      SERENITY_DYNAMIC_ALLOCATION=true (guard, top-ups, releases after deletes) against the gold
 *      simulator over real HTTP; served = the API said yes.
 *      - blocks only: every top-up rounded to a block (SERENITY_ALLOCATION_EXACT_TOPUP=false,
 *        SERENITY_ALLOCATION_REBALANCE=false) — the design before §11;
 *      - + exact: a refused block is retried with the exact requirement (§11 step 1);
 *      - + exact + rebalance: then slack is reclaimed from siblings (§11 step 2).
 *  (b) flat up-front carves, pure models, no top-ups ever:
 *      - fixed slice: each brand gets {1 project, 500 prompts} from the pool when it arrives (all
 *        or nothing, as an upstream transfer would be) — the "fixed slice up front" of SPEC §1, at
 *        a slice that fits only one brand in this pool: a worst case, kept to show it;
 *      - even split: the pool split evenly over the brands that have arrived, in whole blocks,
 *        re-split at every arrival (never below a brand's usage rounded up to a block) — the flat
 *        policy a careful operator would run, and the fair baseline.
 *  (c) perfect shared pool, a pure model: an operation is served while total usage fits the pool.
 *
 *   npx tsx bench/pool-efficiency.ts [--seeds 7,11,42] [--demands 1,2] [--brands 6]
 *     [--publish-lag-ms 30000] [--used-lag-ms 20000] [--replays compressed,spread]
 *
 * Demand is counted in the units the trace would use if everything were served (projects and
 * prompt units, `texts × models`); `--demands` scales the texts per request so the prompt demand is
 * that multiple of the pool. Stranded units at the end, one definition for every policy: allocation
 * beyond the usage rounded up to a block (`total − roundUpToBlock(used + drafted)` per
 * sub-workspace, read from the simulator for JIT, from the carve for the flat models; 0 for the
 * perfect pool); "allocated unused" is `total − used − drafted` (stranded plus block rounding);
 * "max stranded per sub-workspace" is the largest of `stranded / block` over sub-workspaces and
 * dimensions. Allocation calls: the resources reads and transfers in the simulator's call log over
 * the whole trace (top-ups, rebalancing, releases), per operation served.
 *
 * Time. Every operation carries a timestamp, and each JIT run replays them on one injected clock
 * shared by Serenity (every service) and the in-process simulator, whose `used` lags each publish by
 * `--used-lag-ms` of that clock (the simulator's `usedLagMs`); Serenity's publish-lag window is
 * `--publish-lag-ms` (default: production's 30 s). Two replays of the same operations:
 *  - compressed: one operation every 50 ms — every sibling is always inside the window of its last
 *    publish (the old replay's situation, weeks in seconds);
 *  - spread: an org's simulated week — the trace's slots laid over five working days (09:00–18:00,
 *    quiet nights and a quiet weekend), a little jitter, and operations sharing a slot sent as a
 *    burst a few seconds apart.
 * Time moves only between operations and when Serenity itself waits (a retry's backoff sleeps on the
 * same clock, so it lets the lag pass as it would). The allocation lock runs in-process (the replay
 * is one process and sequential; the database lease's heartbeat would sleep on simulated time).
 * The pool sampler runs as a worker runs it, a pass every 60 s of simulated time (only the one just
 * before an operation: a pass between two operations sees nothing the next would not); its calls
 * are background work, reported apart and not counted as the operations' allocation calls.
 */
import { parseArgs } from "node:util";

import { DEFAULT_POOL_SAMPLE_INTERVAL_MS } from "../src/config/env.ts";
import { findOrgById } from "../src/db/orgs/findOrgById.ts";
import { BLOCK, roundUpToBlock } from "../src/domain/allocation.ts";
import type { Clock } from "../src/domain/clock.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";
import { createInProcessLockProvider } from "../test/support/inProcessAllocationLock.ts";
import { inProcessApi, printTable, scratchDatabase } from "./allocation-support.ts";

const { values: args } = parseArgs({
  options: {
    seeds: { type: "string", default: "7,11,42" },
    demands: { type: "string", default: "1,2" },
    brands: { type: "string", default: "6" },
    "publish-lag-ms": { type: "string", default: "30000" },
    "used-lag-ms": { type: "string", default: "20000" },
    replays: { type: "string", default: "compressed,spread" },
  },
});
type Replay = "compressed" | "spread";
const POOL = { projects: 13, prompts: 800 };
const CARVE = { projects: 1, prompts: 500 };
const MODELS = ["search-gpt", "perplexity", "google-ai-overview", "gpt-5"];
const MARKETS = [
  { market: "US", languageCode: "en", geo: 2840 },
  { market: "FR", languageCode: "fr", geo: 2250 },
  { market: "DE", languageCode: "de", geo: 2276 },
  { market: "ES", languageCode: "es", geo: 2724 },
  { market: "IT", languageCode: "it", geo: 2380 },
];

type Op =
  | { kind: "arrive"; brand: number; market: number; models: number }
  | { kind: "addMarket"; brand: number; market: number; models: number }
  | { kind: "addPrompts"; brand: number; market: number; texts: number }
  | { kind: "addModel"; brand: number; market: number }
  | { kind: "deleteMarket"; brand: number; market: number };

interface PlannedOp {
  op: Op;
  /** The trace's slot (brands arrive and act in slots; several ops may share one). */
  slot: number;
  /** Units the op uses (or frees, negative) if everything before it was served. */
  units: { projects: number; prompts: number };
}

/** A small deterministic generator (LCG), so the trace is the same on every machine. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The trace, and the units of each op in the "everything served" world. */
function buildTrace(seed: number, brands: number, scale = 1): PlannedOp[] {
  const next = random(seed);
  const pick = (n: number) => Math.floor(next() * n);
  const timeline: { at: number; op: Op }[] = [];
  const plan = new Map<number, Map<number, { texts: number; models: number }>>();
  const events: { at: number; brand: number }[] = [];
  for (let brand = 0; brand < brands; brand++) {
    events.push({ at: brand * 6, brand });
    for (let step = 1; step <= 7; step++) events.push({ at: brand * 6 + step * 4 + pick(3), brand });
  }
  events.sort((a, b) => a.at - b.at || a.brand - b.brand);
  for (const { at, brand } of events) {
    const markets = plan.get(brand);
    if (!markets) {
      const market = pick(MARKETS.length);
      const models = 1 + pick(2);
      plan.set(brand, new Map([[market, { texts: 0, models }]]));
      timeline.push({ at, op: { kind: "arrive", brand, market, models } });
      continue;
    }
    const live = [...markets.keys()];
    const roll = next();
    const free = MARKETS.map((_, i) => i).filter((i) => !markets.has(i));
    if ((roll < 0.15 || live.length === 0) && free.length > 0) {
      const market = free[pick(free.length)]!;
      const models = 1 + pick(2);
      markets.set(market, { texts: 0, models });
      timeline.push({ at, op: { kind: "addMarket", brand, market, models } });
    } else if (live.length === 0) {
      continue;
    } else if (roll < 0.27 && live.length > 1) {
      const market = live[pick(live.length)]!;
      markets.delete(market);
      timeline.push({ at, op: { kind: "deleteMarket", brand, market } });
    } else if (roll < 0.4) {
      const market = live[pick(live.length)]!;
      if (markets.get(market)!.models >= MODELS.length) continue;
      markets.get(market)!.models += 1;
      timeline.push({ at, op: { kind: "addModel", brand, market } });
    } else {
      const market = live[pick(live.length)]!;
      const texts = Math.max(1, Math.round((5 + pick(30)) * scale));
      markets.get(market)!.texts += texts;
      timeline.push({ at, op: { kind: "addPrompts", brand, market, texts } });
    }
  }
  // Units in the everything-served world.
  const world = new Map<string, { texts: number; models: number }>();
  return timeline.map(({ at: slot, op }): PlannedOp => {
    const key = `${op.brand}:${op.market}`;
    switch (op.kind) {
      case "arrive":
      case "addMarket":
        world.set(key, { texts: 0, models: op.models });
        return { op, slot, units: { projects: 1, prompts: 0 } };
      case "addPrompts": {
        const market = world.get(key)!;
        market.texts += op.texts;
        return { op, slot, units: { projects: 0, prompts: op.texts * market.models } };
      }
      case "addModel": {
        const market = world.get(key)!;
        market.models += 1;
        return { op, slot, units: { projects: 0, prompts: market.texts } };
      }
      case "deleteMarket": {
        const market = world.get(key)!;
        world.delete(key);
        return { op, slot, units: { projects: -1, prompts: -market.texts * market.models } };
      }
    }
  });
}

const HOUR_MS = 3_600_000;
/** The pool sampler's cadence in a worker (SERENITY_POOL_SAMPLE_INTERVAL_MS, default 60 s). */
const SAMPLE_EVERY_MS = DEFAULT_POOL_SAMPLE_INTERVAL_MS;
const WORKING_DAYS = 5;
const WORKING_HOURS = 9;
/** Monday 2026-03-02 00:00 UTC: the simulated week starts here. */
const WEEK_START_MS = Date.UTC(2026, 2, 2);

/**
 * When each operation happens (ms since the epoch). Compressed: one every 50 ms. Spread: the slots
 * laid evenly over the working hours of a week (09:00–18:00, Monday to Friday), each op jittered
 * within its slot; ops sharing a slot go out as a burst 2–20 s apart. Its own random stream, so the
 * operations are the same in both replays.
 */
function timestamps(trace: PlannedOp[], replay: Replay, seed: number): number[] {
  if (replay === "compressed") return trace.map((_, i) => WEEK_START_MS + 9 * HOUR_MS + i * 50);
  const next = random(seed ^ 0x5eed);
  const slots = Math.max(...trace.map(({ slot }) => slot)) + 1;
  const workingMs = WORKING_DAYS * WORKING_HOURS * HOUR_MS;
  const slotMs = workingMs / slots;
  const calendar = (working: number) => {
    const day = Math.floor(working / (WORKING_HOURS * HOUR_MS));
    const inDay = working - day * WORKING_HOURS * HOUR_MS;
    return WEEK_START_MS + day * 24 * HOUR_MS + 9 * HOUR_MS + inDay;
  };
  const times: number[] = [];
  let previousSlot = -1;
  for (const { slot } of trace) {
    const last = times.at(-1) ?? 0;
    const time =
      slot === previousSlot
        ? last + 2_000 + Math.floor(next() * 18_000)
        : Math.max(last + 1_000, calendar(Math.min(workingMs - 1, (slot + next() * 0.8) * slotMs)));
    times.push(time);
    previousSlot = slot;
  }
  return times;
}

/**
 * Simulated time, shared by Serenity and the simulator: it moves when the replay moves it to the
 * next operation's timestamp, and when a wait sleeps on it (the wait is over at once, its time
 * spent).
 */
class ReplayClock implements Clock {
  #ms: number;
  constructor(startMs: number) {
    this.#ms = startMs;
  }
  now(): Date {
    return new Date(this.#ms);
  }
  /** What the database-clock statements decide with (publish windows among them): simulated time too. */
  databaseTime(): Date {
    return new Date(this.#ms);
  }
  ms(): number {
    return this.#ms;
  }
  advanceTo(ms: number): void {
    this.#ms = Math.max(this.#ms, ms);
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    this.#ms += Math.max(0, ms);
    return new Promise((resolve) => setImmediate(resolve));
  }
}

/** The per-policy state of a pure model: markets that exist, with their texts and models. */
type Markets = Map<string, { texts: number; models: number }>;

interface PolicyResult {
  served: boolean[];
  /** Prompt units the served ops used, in this policy's own state. */
  promptUnits: number;
  stranded: { projects: number; prompts: number };
  /** Allocated but not in use at the end (`total − used − drafted`): stranded plus block rounding. */
  unused: { projects: number; prompts: number };
  activeSubWorkspaces: number;
  /** The largest `stranded / block` over sub-workspaces and dimensions. */
  maxStrandedBlocks: number;
  /** Resources reads + transfers in the simulator's call log (JIT only). */
  allocationCalls?: number;
  /** Upstream calls of the pool sampler's passes (background work, not the operations'), and the passes. */
  samplerCalls?: number;
  samplerPasses?: number;
}

/** The JIT variants: the flags each runs with (read per request, so set around its run). */
const JIT_VARIANTS = {
  "JIT blocks only": { SERENITY_ALLOCATION_EXACT_TOPUP: "false", SERENITY_ALLOCATION_REBALANCE: "false" },
  "JIT + exact": { SERENITY_ALLOCATION_EXACT_TOPUP: "true", SERENITY_ALLOCATION_REBALANCE: "false" },
  "JIT + exact + rebalance": {
    SERENITY_ALLOCATION_EXACT_TOPUP: "true",
    SERENITY_ALLOCATION_REBALANCE: "true",
  },
} as const;

/** Applies an op to a market map if `fits(need)`; returns whether it was served. */
function applyModelOp(
  markets: Markets,
  op: Op,
  fits: (brand: number, need: { projects: number; prompts: number }) => boolean,
): boolean {
  const key = `${op.brand}:${op.market}`;
  const market = markets.get(key);
  switch (op.kind) {
    case "arrive":
    case "addMarket":
      if (market || !fits(op.brand, { projects: 1, prompts: 0 })) return false;
      markets.set(key, { texts: 0, models: op.models });
      return true;
    case "addPrompts":
      if (!market || !fits(op.brand, { projects: 0, prompts: op.texts * market.models })) return false;
      market.texts += op.texts;
      return true;
    case "addModel":
      if (!market || !fits(op.brand, { projects: 0, prompts: market.texts })) return false;
      market.models += 1;
      return true;
    case "deleteMarket":
      if (!market) return false;
      markets.delete(key);
      return true;
  }
}

function usageOf(markets: Markets, brand?: number) {
  let projects = 0;
  let prompts = 0;
  for (const [key, market] of markets) {
    if (brand !== undefined && !key.startsWith(`${brand}:`)) continue;
    projects += 1;
    prompts += market.texts * market.models;
  }
  return { projects, prompts };
}

function perfectPool(trace: PlannedOp[]): PolicyResult {
  const markets: Markets = new Map();
  let promptUnits = 0;
  const served = trace.map(({ op }) =>
    applyModelOp(markets, op, (_brand, need) => {
      const used = usageOf(markets);
      const fits =
        used.projects + need.projects <= POOL.projects && used.prompts + need.prompts <= POOL.prompts;
      if (fits) promptUnits += need.prompts;
      return fits;
    }),
  );
  const brands = new Set([...markets.keys()].map((key) => key.split(":")[0]));
  const none = { projects: 0, prompts: 0 };
  return {
    served,
    promptUnits,
    stranded: none,
    unused: none,
    activeSubWorkspaces: brands.size,
    maxStrandedBlocks: 0,
  };
}

type Units = { projects: number; prompts: number };
const DIMENSIONS = ["projects", "prompts"] as const;

/**
 * How a flat policy carves the pool when a brand arrives: it may set every arrived brand's carve
 * (a re-split). Carves are never raised by a write afterwards: no top-ups, that is what "flat" means.
 */
type CarvePolicy = (arrived: number[], carves: Map<number, Units>, usage: (brand: number) => Units) => void;

/** A fixed slice per brand at arrival while the pool still holds it, all or nothing (one transfer). */
function fixedSlice(slice: Units): CarvePolicy {
  return (arrived, carves) => {
    const brand = arrived.at(-1)!;
    const carved = { projects: 0, prompts: 0 };
    for (const [, carve] of carves) for (const d of DIMENSIONS) carved[d] += carve[d];
    const granted = DIMENSIONS.every((d) => POOL[d] - carved[d] >= slice[d]);
    carves.set(brand, granted ? { ...slice } : { projects: 0, prompts: 0 });
  };
}

/**
 * The pool split evenly over the brands that have arrived, in whole blocks, re-split at every
 * arrival: each brand gets the same number of blocks, except that a re-split never takes a brand
 * below its usage rounded up to a block (such a brand keeps that, and the rest is split evenly
 * over the others). Blocks that do not divide evenly stay in the pool.
 */
const evenSplit: CarvePolicy = (arrived, carves, usage) => {
  for (const d of DIMENSIONS) {
    const blocks = POOL[d] / BLOCK[d];
    const need = new Map(
      arrived.map((brand) => [brand, roundUpToBlock(usage(brand)[d], BLOCK[d]) / BLOCK[d]]),
    );
    const kept = new Set<number>();
    let share = 0;
    for (;;) {
      const others = arrived.filter((brand) => !kept.has(brand));
      const left = blocks - [...kept].reduce((sum, brand) => sum + need.get(brand)!, 0);
      share = others.length === 0 ? 0 : Math.floor(left / others.length);
      const above = others.filter((brand) => need.get(brand)! > share);
      if (above.length === 0) break;
      for (const brand of above) kept.add(brand);
    }
    for (const brand of arrived) {
      const carve = carves.get(brand) ?? { projects: 0, prompts: 0 };
      carve[d] = (kept.has(brand) ? need.get(brand)! : share) * BLOCK[d];
      carves.set(brand, carve);
    }
  }
};

function flatCarve(trace: PlannedOp[], policy: CarvePolicy): PolicyResult {
  const markets: Markets = new Map();
  const carves = new Map<number, Units>();
  const arrived: number[] = [];
  let promptUnits = 0;
  const served = trace.map(({ op }) => {
    if (op.kind === "arrive") {
      arrived.push(op.brand);
      policy(arrived, carves, (brand) => usageOf(markets, brand));
    }
    return applyModelOp(markets, op, (brand, need) => {
      const carve = carves.get(brand)!;
      const used = usageOf(markets, brand);
      const fits =
        used.projects + need.projects <= carve.projects && used.prompts + need.prompts <= carve.prompts;
      if (fits) promptUnits += need.prompts;
      return fits;
    });
  });
  // The same two measures as JIT's, per sub-workspace: stranded = allocation beyond the usage
  // rounded up to a block; allocated unused = allocation − usage (stranded plus block rounding).
  const stranded = { projects: 0, prompts: 0 };
  const unused = { projects: 0, prompts: 0 };
  let active = 0;
  let maxStrandedBlocks = 0;
  for (const [brand, carve] of carves) {
    if (carve.projects === 0 && carve.prompts === 0) continue;
    active += 1;
    const used = usageOf(markets, brand);
    for (const d of DIMENSIONS) {
      const here = Math.max(0, carve[d] - roundUpToBlock(used[d], BLOCK[d]));
      stranded[d] += here;
      unused[d] += carve[d] - used[d];
      maxStrandedBlocks = Math.max(maxStrandedBlocks, here / BLOCK[d]);
    }
  }
  return { served, promptUnits, stranded, unused, activeSubWorkspaces: active, maxStrandedBlocks };
}

/** JIT for real: every op through the API with the flag on, against the gold simulator. */
async function jit(
  trace: PlannedOp[],
  times: number[],
  flags: Record<string, string>,
): Promise<PolicyResult> {
  const database = await scratchDatabase("pool_efficiency");
  const clock = new ReplayClock(times[0]! - HOUR_MS);
  const sim = await startSimulator({
    seed: "gold",
    settings: { settleReads: 0, usedLagMs: Number(args["used-lag-ms"]) },
    now: () => clock.ms(),
  });
  Object.assign(process.env, flags, {
    SERENITY_DYNAMIC_ALLOCATION: "true",
    SERENITY_PUBLISH_LAG_MS: args["publish-lag-ms"],
  });
  const api = await inProcessApi(database.url, sim.url, {
    clock,
    allocationLockProvider: createInProcessLockProvider(clock),
  });
  try {
    const org = await api.call("POST", "/v2/orgs", {
      name: "Trace",
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
    });
    const brandIds = new Map<number, string>();
    const models = new Map<string, number>();
    const texts = new Map<string, number>();
    let promptUnits = 0;
    const served: boolean[] = [];
    const orgRow = (await findOrgById(api.db, org.body.id))!;
    // The pool sampler, as a worker runs it in production: a pass every SAMPLE_EVERY_MS of simulated
    // time. A pass between two operations sees nothing the one just before the next would not, so
    // only that one runs; its reads are counted apart from the operations' (background work).
    let sampledAt = -Infinity;
    const samplerRanges: [number, number][] = [];
    for (const [index, { op }] of trace.entries()) {
      clock.advanceTo(times[index]!);
      if (clock.ms() - sampledAt >= SAMPLE_EVERY_MS) {
        const before = sim.simulator.calls.list().length;
        await api.services.poolView.sample(orgRow, api.token);
        samplerRanges.push([before, sim.simulator.calls.list().length]);
        sampledAt = clock.ms();
      }
      const key = `${op.brand}:${op.market}`;
      const market = MARKETS[op.market]!;
      const base = () => `/v2/orgs/${org.body.id}/brands/${brandIds.get(op.brand)}/serenity`;
      let ok = false;
      switch (op.kind) {
        case "arrive": {
          const created = await api.call("POST", `/v2/orgs/${org.body.id}/brands`, {
            name: `Brand ${op.brand}`,
            domain: `brand${op.brand}.example`,
            semrushMarket: {
              market: market.market,
              languageCode: market.languageCode,
              modelIds: MODELS.slice(0, op.models),
            },
          });
          if (created.body?.id) brandIds.set(op.brand, created.body.id);
          else {
            // The market failed after the brand was provisioned: find the brand to keep going.
            const list = await api.call("GET", `/v2/orgs/${org.body.id}/brands`);
            const found = (list.body.items as { id: string; name: string }[]).find(
              (b) => b.name === `Brand ${op.brand}`,
            );
            if (found) brandIds.set(op.brand, found.id);
          }
          ok = created.status === 201;
          if (ok) models.set(key, op.models);
          break;
        }
        case "addMarket": {
          const answer = await api.call("POST", `${base()}/markets`, {
            market: market.market,
            languageCode: market.languageCode,
            modelIds: MODELS.slice(0, op.models),
          });
          ok = answer.status === 201;
          if (ok) models.set(key, op.models);
          break;
        }
        case "addPrompts": {
          if (!models.has(key)) break;
          const answer = await api.call("POST", `${base()}/prompts`, {
            items: Array.from({ length: op.texts }, (_, i) => ({
              text: `brand ${op.brand} market ${op.market} prompt ${served.length}-${i}`,
              geoTargetId: market.geo,
              languageCode: market.languageCode,
            })),
          });
          ok = answer.status === 201;
          if (ok) {
            texts.set(key, (texts.get(key) ?? 0) + op.texts);
            promptUnits += op.texts * models.get(key)!;
          }
          break;
        }
        case "addModel": {
          const current = models.get(key);
          if (current === undefined) break;
          const answer = await api.call(
            "PUT",
            `${base()}/markets/${market.geo}/${market.languageCode}/models`,
            {
              modelIds: MODELS.slice(0, current + 1),
            },
          );
          ok = answer.status === 200;
          if (ok) {
            models.set(key, current + 1);
            promptUnits += texts.get(key) ?? 0;
          }
          break;
        }
        case "deleteMarket": {
          if (!models.has(key)) break;
          const answer = await api.call("DELETE", `${base()}/markets/${market.geo}/${market.languageCode}`);
          ok = answer.status === 204;
          if (ok) {
            models.delete(key);
            texts.delete(key);
          }
          break;
        }
      }
      served.push(ok);
    }
    const stranded = { projects: 0, prompts: 0 };
    const unused = { projects: 0, prompts: 0 };
    let active = 0;
    let maxStrandedBlocks = 0;
    for (const workspace of sim.simulator.dump().workspaces) {
      if (workspace.parent_id !== GOLD_PARENT_WORKSPACE_ID) continue;
      active += 1;
      for (const dimension of ["projects", "prompts"] as const) {
        const { used, drafted, total } = workspace.resources[dimension];
        const here = Math.max(0, total - roundUpToBlock(used + drafted, BLOCK[dimension]));
        stranded[dimension] += here;
        unused[dimension] += total - used - drafted;
        maxStrandedBlocks = Math.max(maxStrandedBlocks, here / BLOCK[dimension]);
      }
    }
    const bySampler = (index: number) => samplerRanges.some(([from, to]) => index >= from && index < to);
    const isAllocationCall = (call: { method: string; path: string }) =>
      (call.method === "GET" && call.path.endsWith("/resources")) ||
      (call.method === "POST" && call.path.endsWith("/resources/transfer"));
    const calls = sim.simulator.calls.list();
    const allocationCalls = calls.filter((call, index) => isAllocationCall(call) && !bySampler(index)).length;
    const samplerCalls = calls.filter((_call, index) => bySampler(index)).length;
    return {
      served,
      promptUnits,
      stranded,
      unused,
      activeSubWorkspaces: active,
      maxStrandedBlocks,
      allocationCalls,
      samplerCalls,
      samplerPasses: samplerRanges.length,
    };
  } finally {
    await api.close();
    await sim.close();
    await database.drop();
  }
}

function demandOf(trace: PlannedOp[]) {
  return trace.reduce(
    (sum, { units }) => ({
      projects: sum.projects + Math.max(0, units.projects),
      prompts: sum.prompts + Math.max(0, units.prompts),
    }),
    { projects: 0, prompts: 0 },
  );
}

/** The trace whose prompt demand is closest to `factor × pool` (texts per request scaled). */
function traceAt(seed: number, brands: number, factor: number): PlannedOp[] {
  const target = factor * POOL.prompts;
  let scale = 1;
  let best = buildTrace(seed, brands, scale);
  for (let i = 0; i < 12; i++) {
    const demand = demandOf(best).prompts;
    if (Math.abs(demand - target) <= target * 0.01) break;
    scale *= target / demand;
    const next = buildTrace(seed, brands, scale);
    if (Math.abs(demandOf(next).prompts - target) < Math.abs(demand - target)) best = next;
  }
  return best;
}

async function main() {
  const brands = Number(args.brands);
  const replays = args.replays.split(",") as Replay[];
  const rows: string[][] = [];
  for (const seed of args.seeds.split(",").map(Number)) {
    for (const factor of args.demands.split(",").map(Number)) {
      const trace = traceAt(seed, brands, factor);
      const demand = demandOf(trace);
      const models: [string, PolicyResult][] = [
        ["flat: fixed slice {1, 500} (model)", flatCarve(trace, fixedSlice(CARVE))],
        ["flat: even split, re-split (model)", flatCarve(trace, evenSplit)],
      ];
      const perfect = perfectPool(trace);
      models.push(["perfect shared pool (model)", perfect]);
      const demandOps = trace.filter(({ units }) => units.projects > 0 || units.prompts > 0).length;
      const servedOps = (result: PolicyResult) =>
        trace.filter(({ units }, i) => result.served[i] && (units.projects > 0 || units.prompts > 0)).length;
      const allServed = (result: PolicyResult) => result.served.filter(Boolean).length;
      console.error(
        `seed ${seed}, demand ${factor}×: ${trace.length} operations, ${demand.projects} projects / ${demand.prompts} prompt units`,
      );
      for (const replay of replays) {
        const times = timestamps(trace, replay, seed);
        const results: [string, PolicyResult][] = [];
        for (const [name, flags] of Object.entries(JIT_VARIANTS)) {
          results.push([name, await jit(trace, times, flags)]);
        }
        const spanHours = (times.at(-1)! - times[0]!) / HOUR_MS;
        for (const [name, result] of [...results, ...models]) {
          rows.push([
            `${seed}`,
            `${factor}× (${demand.prompts})`,
            `${replay} (${spanHours < 1 ? `${Math.round(spanHours * 3600)} s` : `${spanHours.toFixed(0)} h`})`,
            name,
            `${((100 * result.promptUnits) / perfect.promptUnits).toFixed(1)} %`,
            `${result.promptUnits}`,
            `${servedOps(result)} / ${demandOps}`,
            `${result.stranded.projects} / ${result.stranded.prompts}`,
            result.maxStrandedBlocks.toFixed(2),
            `${result.unused.projects} / ${result.unused.prompts}`,
            result.allocationCalls === undefined
              ? "—"
              : (result.allocationCalls / allServed(result)).toFixed(2),
            result.samplerCalls === undefined ? "—" : `${result.samplerCalls} / ${result.samplerPasses}`,
          ]);
        }
      }
    }
  }
  console.log(
    `pool efficiency: ${brands} brands, pool ${POOL.projects} / ${POOL.prompts}, publish-lag window ${args["publish-lag-ms"]} ms, simulator used-lag ${args["used-lag-ms"]} ms\n`,
  );
  printTable(
    [
      "seed",
      "demand (prompt units)",
      "replay (span)",
      "policy",
      "served vs perfect",
      "prompt units served",
      "demand ops served",
      "stranded at end (projects / prompts)",
      "max stranded per sub-workspace (blocks)",
      "allocated unused at end",
      "allocation calls per op served",
      "sampler calls / passes (background)",
    ],
    rows,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
