/**
 * Time of a 500-prompt bulk create (`POST …/serenity/prompts`) through the whole stack: our API
 * in-process (Fastify inject), the real gateway client over real HTTP, the in-process simulator
 * (`unmetered` seed, so rounds never run out of pool) at 0 ms and 20 ms of added upstream latency.
 *
 *   npx tsx bench/bulk-prompts.ts [--rounds 3] [--latencies 0,20]
 *
 * Each round uses a fresh brand with one US/en market (the three default models) and sends 500 new
 * texts (a third branded, categories spread over three values, so the creates are batched by six
 * tag sets), then the same 500 again (all existing: the read-only path plus one publish).
 * Uses DATABASE_URL's server when set (a scratch database is created and dropped), else an
 * embedded PostgreSQL in a temporary directory.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import { buildApp } from "../src/api/app.ts";
import { hs256Verifier, signDevToken } from "../src/auth/tokenVerifier.ts";
import { openDatabase } from "../src/db/database.ts";
import { systemClock } from "../src/domain/clock.ts";
import { createGatewayClient } from "../src/gateway/gatewayClient.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createMetrics } from "../src/observability/metrics.ts";
import { createServices } from "../src/runtime/services.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    latencies: { type: "string", default: "0,20" },
  },
});
const ROUNDS = Number(args.rounds);
const LATENCIES = args.latencies.split(",").map(Number);
const SECRET = "bench-secret-that-is-long-enough-0123456789";
const logger = createLogger({ level: "warn" });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const scratch = await scratchDatabase("prompts");
  const url = scratch.url;
  const database = openDatabase(url);
  const simulator = await startSimulator({ seed: "unmetered" });
  const events = new EventBus();
  const gateway = createGatewayClient({
    projectsBaseUrl: simulator.url,
    usersBaseUrl: simulator.url,
    events,
    logger,
  });
  const services = createServices({ db: database.db, clock: systemClock, events, logger, gateway });
  const app = await buildApp({
    logger,
    events,
    metrics: createMetrics(events),
    verifier: hs256Verifier(SECRET),
    services,
    readiness: async () => ({ ready: true, checks: {} }),
  });
  await app.ready();
  const token = await signDevToken(SECRET, { sub: "bench", admin: true });
  const call = async (method: "GET" | "POST", route: string, payload?: object) => {
    const response = await app.inject({
      method,
      url: route,
      headers: { authorization: `Bearer ${token}` },
      payload,
    });
    if (response.statusCode >= 300 && response.statusCode !== 207) {
      throw new Error(`${method} ${route} answered ${response.statusCode}: ${response.body}`);
    }
    return { status: response.statusCode, body: response.json() };
  };

  const org = await call("POST", "/v2/orgs", {
    name: "Bench",
    parentWorkspaceId: UNMETERED_PARENT_WORKSPACE_ID,
  });
  const rows: string[][] = [];
  try {
    for (const latencyMs of LATENCIES) {
      simulator.simulator.updateSettings({ latencyMs });
      const fresh: number[] = [];
      const repeat: number[] = [];
      let freshCalls = 0;
      let repeatCalls = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const brand = await call("POST", `/v2/orgs/${org.body.id}/brands`, {
          name: `Acme ${latencyMs}-${round}`,
          domain: "acme.example",
        });
        const base = `/v2/orgs/${org.body.id}/brands/${brand.body.id}/serenity`;
        await call("POST", `${base}/markets`, { market: "US", languageCode: "en" });
        const items = Array.from({ length: 500 }, (_, i) => ({
          text:
            i % 3 === 0
              ? `is acme ${latencyMs}-${round} good for job ${i}?`
              : `how to do job ${i} (${latencyMs}-${round})`,
          geoTargetId: 2840,
          languageCode: "en",
          ...(i % 4 === 0 ? {} : { category: ["pricing", "support", "features"][i % 3] }),
        }));
        for (const [samples, expected] of [
          [fresh, 201],
          [repeat, 207],
        ] as const) {
          const callsBefore = simulator.simulator.calls.size;
          const started = performance.now();
          const answer = await call("POST", `${base}/prompts`, { items });
          samples.push(performance.now() - started);
          if (answer.status !== expected)
            throw new Error(`bulk answered ${answer.status}, expected ${expected}`);
          const upstream = simulator.simulator.calls.size - callsBefore;
          if (expected === 201) freshCalls = upstream;
          else repeatCalls = upstream;
        }
      }
      rows.push([
        `${latencyMs}`,
        "500 new texts",
        median(fresh).toFixed(0),
        Math.max(...fresh).toFixed(0),
        `${freshCalls}`,
      ]);
      rows.push([
        `${latencyMs}`,
        "500 existing texts",
        median(repeat).toFixed(0),
        Math.max(...repeat).toFixed(0),
        `${repeatCalls}`,
      ]);
    }
  } finally {
    await app.close();
    await gateway.close();
    await simulator.close();
    await database.close();
    await scratch.drop();
  }

  const header = ["upstream latency (ms)", "request", "median (ms)", "max (ms)", "upstream calls"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padStart(widths[i]!)).join(" | ")} |`;
  console.log(`bulk prompt create, ${ROUNDS} rounds per latency (3 models per market)\n`);
  console.log(line(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 1) + ":").join("|")}|`);
  for (const row of rows) console.log(line(row));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
