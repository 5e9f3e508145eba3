/**
 * Simulator throughput: requests per second of a cheap GET (a workspace's resources) and of a
 * metered prompt create (one new text per request), so later benchmarks can tell whether they are
 * simulator-bound. Two placements side by side in one run: the simulator in its own process
 * (`serenity simulator`, loopback only, not sharing an event loop with the load generator) and in
 * this process. Every (placement, scenario) runs once per round, the placements' order rotating
 * round by round, so neither always runs first on a machine whose load moves.
 *
 *   npx tsx bench/simulator-throughput.ts [--duration 5] [--connections 10] [--rounds 2]
 *                                         [--placements separate,in-process]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";

import { GATEWAY_PREFIXES } from "../src/gateway/routeTemplate.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  requests?: AutocannonRequest[];
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations; the shape used here is declared above.
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

const UM = GATEWAY_PREFIXES.um;
const PE = GATEWAY_PREFIXES.pe;

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    placements: { type: "string", default: "separate,in-process" },
  },
});
const ROUNDS = Math.max(1, Number(values.rounds));
type Placement = "separate" | "in-process";
const PLACEMENTS = values.placements.split(",").map((name) => name.trim()) as Placement[];
if (PLACEMENTS.length === 0 || PLACEMENTS.some((name) => name !== "separate" && name !== "in-process"))
  throw new Error("--placements takes separate, in-process, comma-separated");
const duration = Math.min(60, Math.max(1, Number(values.duration)));
const connections = Math.min(200, Math.max(1, Number(values.connections)));

const WS = UNMETERED_PARENT_WORKSPACE_ID;
const headers = {
  authorization: "Bearer bench-token",
  "content-type": "application/json",
  accept: "application/json",
};

async function startOutOfProcess(): Promise<{ url: string; close(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["bin/serenity.mjs", "simulator", "--port", "0", "--host", "127.0.0.1", "--seed", "unmetered"],
    {
      cwd: path.resolve(import.meta.dirname, ".."),
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /simulator at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function startInProcess(): Promise<{ url: string; close(): Promise<void> }> {
  const started = await startSimulator({ seed: "unmetered", controls: true });
  return { url: started.url, close: started.close };
}

async function json(url: string, method: string, body?: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

/** One simulator per placement, each with its own project for the metered write. */
async function prepare(placement: Placement) {
  const server = placement === "in-process" ? await startInProcess() : await startOutOfProcess();
  const project = (await json(`${server.url}${PE}/v1/workspaces/${WS}/projects`, "POST", {
    name: "Bench",
    type: "ai",
    country_code: "us",
    location_id: 2840,
    language_id: "5a0a33ed-7f5c-4901-befd-a042c0350da1", // English, in the live catalogue
  })) as { id: string };
  let counter = 0;
  const scenarios: { name: string; requests: AutocannonRequest[] }[] = [
    {
      name: "GET workspace resources (UM)",
      requests: [{ method: "GET", path: `${UM}/v1/workspaces/${WS}/resources` }],
    },
    {
      name: "POST prompt create, 1 new text (PE)",
      requests: [
        {
          method: "POST",
          path: `${PE}/v3/workspaces/${WS}/projects/${project.id}/aio/prompts`,
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({ items: [{ name: `bench prompt ${counter++}` }], tag_ids: [] }),
          }),
        },
      ],
    },
  ];
  return { placement, server, scenarios };
}

const prepared: Awaited<ReturnType<typeof prepare>>[] = [];
try {
  for (const placement of PLACEMENTS) prepared.push(await prepare(placement));
  const rows: string[] = [];
  /** req/s per round, placement and scenario index: for the write / read ratio within a round. */
  const rates = new Map<string, number>();
  for (let round = 1; round <= ROUNDS; round += 1) {
    const shift = (round - 1) % prepared.length;
    for (const { placement, server, scenarios } of [...prepared.slice(shift), ...prepared.slice(0, shift)]) {
      for (const [index, scenario] of scenarios.entries()) {
        await json(`${server.url}/__sim/calls`, "DELETE");
        const result = await autocannon({
          url: server.url,
          connections,
          duration,
          headers,
          requests: scenario.requests,
        });
        const logged = ((await json(`${server.url}/__sim/calls`, "GET")) as unknown[]).length;
        rates.set(`${round} ${placement} ${index}`, result.requests.average);
        rows.push(
          `| ${round} | ${placement} | ${scenario.name} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx + result.errors + result.timeouts} | ${logged} |`,
        );
      }
    }
  }
  const ratios = prepared.map(({ placement }) => {
    const perRound = Array.from({ length: ROUNDS }, (_, r) =>
      (rates.get(`${r + 1} ${placement} 1`)! / rates.get(`${r + 1} ${placement} 0`)!).toFixed(2),
    );
    return `write / read, ${placement}, per round: ${perRound.join(", ")}`;
  });
  process.stdout.write(
    [
      "",
      `Simulator throughput (${connections} connections, ${duration} s each, loopback; ${ROUNDS} rounds, placements in rotating order, rows in run order)`,
      "",
      "| round | placement | scenario | req/s (mean) | p50 ms | p99 ms | failures | calls logged |",
      "|---:|---|---|---:|---:|---:|---:|---:|",
      ...rows,
      "",
      ...ratios,
      "",
    ].join("\n"),
  );
} finally {
  for (const { server } of prepared) await server.close();
}
