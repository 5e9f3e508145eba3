/**
 * Simulator throughput: requests per second of a cheap GET (a workspace's resources) and of a
 * metered prompt create (one new text per request), so later benchmarks can tell whether they are
 * simulator-bound. The simulator runs in its own process (`serenity simulator`, loopback only) so it
 * does not share an event loop with the load generator; `--in-process` runs it here instead.
 *
 *   npx tsx bench/simulator-throughput.ts [--duration 5] [--connections 10] [--in-process]
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
    "in-process": { type: "boolean", default: false },
  },
});
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

const server = values["in-process"] ? await startInProcess() : await startOutOfProcess();
try {
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

  const rows: string[] = [];
  for (const scenario of scenarios) {
    await json(`${server.url}/__sim/calls`, "DELETE");
    const result = await autocannon({
      url: server.url,
      connections,
      duration,
      headers,
      requests: scenario.requests,
    });
    const logged = ((await json(`${server.url}/__sim/calls`, "GET")) as unknown[]).length;
    rows.push(
      `| ${scenario.name} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx + result.errors + result.timeouts} | ${logged} |`,
    );
  }
  process.stdout.write(
    [
      "",
      `Simulator throughput (${values["in-process"] ? "in-process" : "separate process"}, ${connections} connections, ${duration} s each, loopback)`,
      "",
      "| scenario | req/s (mean) | p50 ms | p99 ms | failures | calls logged |",
      "|---|---:|---:|---:|---:|---:|",
      ...rows,
      "",
    ].join("\n"),
  );
} finally {
  await server.close();
}
