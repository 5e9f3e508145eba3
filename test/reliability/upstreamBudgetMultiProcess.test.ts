import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { endpointGroupOf } from "../../src/domain/endpointGroup.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { startTestSimulator, type TestSimulator, UM } from "../support/simulator.ts";

/**
 * spec/gateway.md §7 (one request budget per upstream account), across real processes: two separate Node
 * processes, each with its own database pool, budget and gateway client, share ONE database and
 * burst calls for ONE bearer (three endpoint groups) at once. A recording proxy in front of the
 * simulator observes every call's arrival and end, per bearer hash and group. Asserted on what it
 * observed — a safety property, not a speed: in every 1 s window at most 10 arrivals, and at most
 * 10 calls in flight, per (account, group). The same burst with the budget off (limit 0) breaks
 * both, which is what shows the observation can fail.
 */

const LIMIT = 10;
const CALLS_PER_GROUP = 25;
const PROCESSES = 2;

interface Observed {
  account: string;
  group: string;
  start: number;
  end: number;
}

let sim: TestSimulator;
let db: TestDatabase;
let proxy: Server;
let proxyUrl: string;
let observed: Observed[] = [];
const credentialKey = randomBytes(32).toString("base64");

/** Forwards every request to the simulator and records when it arrived and when its answer ended. */
function startRecordingProxy(target: string): Promise<Server> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const start = performance.now();
    const path = (req.url ?? "/").split("?")[0]!;
    const bearer = String(req.headers.authorization ?? "");
    const group = endpointGroupOf(path.startsWith(UM) ? "um" : "pe", path);
    const account = createHash("sha256").update(bearer).digest("hex").slice(0, 12);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("end", () => observed.push({ account, group, start, end: performance.now() }));
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Per (account, group): the most arrivals in any 1 s window, and the most calls in flight at once. */
function peaks(calls: Observed[]): Map<string, { perSecond: number; inFlight: number; calls: number }> {
  const byKey = new Map<string, Observed[]>();
  for (const call of calls) {
    const key = `${call.account}/${call.group}`;
    byKey.set(key, [...(byKey.get(key) ?? []), call]);
  }
  const result = new Map<string, { perSecond: number; inFlight: number; calls: number }>();
  for (const [key, list] of byKey) {
    const starts = list.map((c) => c.start).sort((a, b) => a - b);
    let perSecond = 0;
    for (let i = 0, j = 0; i < starts.length; i += 1) {
      while (starts[j]! <= starts[i]! - 1_000) j += 1;
      perSecond = Math.max(perSecond, i - j + 1);
    }
    const edges = list.flatMap((c) => [
      { at: c.start, delta: 1 },
      { at: c.end, delta: -1 },
    ]);
    // An end and a start at the same instant: the end first (the call is over).
    edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let inFlight = 0;
    let current = 0;
    for (const edge of edges) {
      current += edge.delta;
      inFlight = Math.max(inFlight, current);
    }
    result.set(key, { perSecond, inFlight, calls: list.length });
  }
  return result;
}

function runBurstProcess(bearer: string, limit: number): Promise<{ outcomes: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/support/budgetBurstChild.ts"], {
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        BURST_UPSTREAM: proxyUrl,
        BURST_BEARER: bearer,
        BURST_CREDENTIAL_KEY: credentialKey,
        BURST_LIMIT: String(limit),
        BURST_CALLS_PER_GROUP: String(CALLS_PER_GROUP),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`burst process exited ${code}:\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").pop()!) as { outcomes: Record<string, number> });
    });
  });
}

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "gold" });
  // Each call takes a while upstream, so an unpaced burst piles up in flight.
  await sim.control("/settings", { latencyMs: 50 });
  db = await createTestDatabase();
  proxy = await startRecordingProxy(sim.url);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
  await db?.destroy();
  await sim?.close();
});

beforeEach(() => {
  observed = [];
});

describe("one upstream budget per (account, group) across processes", () => {
  it("two processes bursting for one bearer: ≤ 10 arrivals in any second and ≤ 10 in flight per group, nothing lost", async () => {
    const bearer = `burst-user-${randomBytes(4).toString("hex")}`;
    const results = await Promise.all(
      Array.from({ length: PROCESSES }, () => runBurstProcess(bearer, LIMIT)),
    );
    const perGroup = CALLS_PER_GROUP * PROCESSES;
    // Every call was answered by the upstream: workspaces and projects OK, prompts a 404 (`gone`);
    // none was refused for budget, none met a 429.
    for (const { outcomes } of results) {
      expect(outcomes).toEqual({ ok: CALLS_PER_GROUP * 2, gone: CALLS_PER_GROUP });
    }
    const seen = peaks(observed);
    expect(seen.size).toBe(3);
    for (const [key, peak] of seen) {
      expect(peak.calls, key).toBe(perGroup);
      expect(peak.perSecond, `${key} arrivals in one second`).toBeLessThanOrEqual(LIMIT);
      expect(peak.inFlight, `${key} in flight`).toBeLessThanOrEqual(LIMIT);
    }
  }, 180_000);

  it("the same burst without a budget breaks the limits (the observation can fail)", async () => {
    const bearer = `unpaced-user-${randomBytes(4).toString("hex")}`;
    await Promise.all(Array.from({ length: PROCESSES }, () => runBurstProcess(bearer, 0)));
    const seen = peaks(observed);
    const worst = Math.max(...[...seen.values()].map((peak) => Math.max(peak.perSecond, peak.inFlight)));
    expect(worst).toBeGreaterThan(LIMIT);
  }, 180_000);
});
