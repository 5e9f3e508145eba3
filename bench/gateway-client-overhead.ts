/**
 * Per-call overhead of our gateway client against a bare undici request, side by side in one run
 * against the in-process simulator (spec SPEC §7: ratios, because machines are noisy).
 *
 *   npx tsx bench/gateway-client-overhead.ts [--calls 2000] [--rounds 5] [--concurrency 16]
 *
 * Both sides make the same call (`GET …/v1/workspaces/{ws}/resources`, the allocation guard's hot
 * read) over a keep-alive undici Pool with the same headers and parse the JSON body; the client
 * adds what it is for: path templating, the per-attempt timer, zod validation and mapping, the
 * retry decision and the `gateway.request` event (with the metrics subscribed, as in production).
 * Rounds alternate which side goes first so drift (JIT, GC, a noisy neighbour) hits both.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import { Pool } from "undici";

import { createGatewayClient } from "../src/gateway/gatewayClient.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createMetrics } from "../src/observability/metrics.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "2000" },
    rounds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "16" },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const TOKEN = "bench-token";
const PATH = `/enterprise/users/api/v1/workspaces/${GOLD_PARENT_WORKSPACE_ID}/resources`;

interface Sample {
  /** Wall time per call, sequential, in microseconds (one entry per call). */
  latenciesUs: number[];
  /** Process CPU per call, in microseconds (client + simulator share the process: compare, don't read absolutely). */
  cpuUsPerCall: number;
  /** Calls per second with `CONCURRENCY` in flight. */
  throughput: number;
}

type Call = () => Promise<unknown>;

async function sequential(call: Call, calls: number): Promise<{ latenciesUs: number[]; cpuUs: number }> {
  const latenciesUs: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) {
    const started = performance.now();
    await call();
    latenciesUs.push((performance.now() - started) * 1000);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { latenciesUs, cpuUs: cpu.user + cpu.system };
}

async function concurrent(call: Call, calls: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next += 1;
        await call();
      }
    }),
  );
  return calls / ((performance.now() - started) / 1000);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

async function main(): Promise<void> {
  const started = await startSimulator({ seed: "gold" });
  const events = new EventBus();
  createMetrics(events); // subscribe the real metrics, so event handling costs what it costs in production
  const client = createGatewayClient({
    projectsBaseUrl: started.url,
    usersBaseUrl: started.url,
    events,
    logger: createLogger({ level: "silent" }),
  });
  const pool = new Pool(started.url, { connections: 64, keepAliveTimeout: 10_000 });
  const headers = { accept: "application/json", authorization: `Bearer ${TOKEN}` };

  const bare: Call = async () => {
    const response = await pool.request({ method: "GET", path: PATH, headers });
    const body = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`bare call answered ${response.statusCode}`);
    return JSON.parse(body) as unknown;
  };
  const ours: Call = () => client.users.getResources(TOKEN, GOLD_PARENT_WORKSPACE_ID);

  try {
    // Warm up both paths (JIT, keep-alive sockets, zod schemas).
    await sequential(bare, 300);
    await sequential(ours, 300);

    const samples: Record<"bare" | "client", Sample[]> = { bare: [], client: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      const order: ["bare" | "client", Call][] =
        round % 2 === 0
          ? [
              ["bare", bare],
              ["client", ours],
            ]
          : [
              ["client", ours],
              ["bare", bare],
            ];
      for (const [name, call] of order) {
        const seq = await sequential(call, CALLS);
        const throughput = await concurrent(call, CALLS, CONCURRENCY);
        samples[name].push({ latenciesUs: seq.latenciesUs, cpuUsPerCall: seq.cpuUs / CALLS, throughput });
      }
    }

    const summary = (name: "bare" | "client") => {
      const all = samples[name].flatMap((s) => s.latenciesUs).sort((a, b) => a - b);
      return {
        p50Us: percentile(all, 50),
        p90Us: percentile(all, 90),
        p99Us: percentile(all, 99),
        cpuUsPerCall: median(samples[name].map((s) => s.cpuUsPerCall)),
        callsPerSecond: median(samples[name].map((s) => s.throughput)),
      };
    };
    const b = summary("bare");
    const c = summary("client");
    const rows = [
      ["p50 latency (µs)", b.p50Us, c.p50Us],
      ["p90 latency (µs)", b.p90Us, c.p90Us],
      ["p99 latency (µs)", b.p99Us, c.p99Us],
      ["CPU per call (µs, whole process)", b.cpuUsPerCall, c.cpuUsPerCall],
      [`throughput, ${CONCURRENCY} in flight (calls/s)`, b.callsPerSecond, c.callsPerSecond],
    ] as const;
    console.log(
      `gateway client overhead — ${ROUNDS} rounds × ${CALLS} calls, GET resources on the simulator\n`,
    );
    console.log(
      `${"metric".padEnd(40)}${"bare undici".padStart(14)}${"our client".padStart(14)}${"ratio".padStart(9)}`,
    );
    for (const [label, bareValue, clientValue] of rows) {
      console.log(
        `${label.padEnd(40)}${bareValue.toFixed(1).padStart(14)}${clientValue.toFixed(1).padStart(14)}${(clientValue / bareValue).toFixed(2).padStart(9)}`,
      );
    }
    console.log(
      `\nadded per call at the median: ${(c.p50Us - b.p50Us).toFixed(1)} µs wall, ${(c.cpuUsPerCall - b.cpuUsPerCall).toFixed(1)} µs CPU`,
    );
    console.log(
      JSON.stringify({
        bench: "gateway-client-overhead",
        calls: CALLS,
        rounds: ROUNDS,
        concurrency: CONCURRENCY,
        bare: b,
        client: c,
      }),
    );
  } finally {
    await client.close();
    await pool.close();
    await started.close();
  }
}

await main();
