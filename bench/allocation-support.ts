/**
 * Shared plumbing of the allocation benchmarks (bench/allocation-*.ts, bench/pool-efficiency.ts):
 * a scratch database (DATABASE_URL's server, else an embedded PostgreSQL in a temporary directory),
 * the API built in-process (Fastify inject) over the real services and gateway client, and a
 * standalone simulator child process (`serenity simulator`), so the server's CPU can be measured
 * without the simulator's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

import { type App, buildApp } from "../src/api/app.ts";
import { hs256Verifier, signDevToken } from "../src/auth/tokenVerifier.ts";
import { type Db, openDatabase } from "../src/db/database.ts";
import { type Clock, systemClock } from "../src/domain/clock.ts";
import { createGatewayClient, type GatewayClient } from "../src/gateway/gatewayClient.ts";
import type { LockProvider } from "../src/locks/reentrantLock.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createMetrics } from "../src/observability/metrics.ts";
import { createServices, type Services } from "../src/runtime/services.ts";

export { type ScratchDatabase, scratchDatabase } from "./support/scratchDatabase.ts";

export const logger = createLogger({ level: process.env.BENCH_LOG_LEVEL ?? "error" });
const SECRET = "bench-secret-that-is-long-enough-0123456789";

export const median = (values: number[]) =>
  values.length === 0 ? NaN : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `serenity simulator --port 0` as a child process (controls on). */
export async function simulatorProcess(
  seed: string,
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [path.resolve("bin/serenity.mjs"), "simulator", "--port", "0", "--seed", seed],
    { env: { ...process.env, LOG_LEVEL: "warn" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /simulator at (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.on("exit", (code) => reject(new Error(`simulator exited (${code}): ${stdout}`)));
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    url,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A `/__sim` control call over HTTP. */
export async function simControl<T = unknown>(
  simulatorUrl: string,
  route: string,
  body?: unknown,
  method?: string,
): Promise<T> {
  const response = await fetch(`${simulatorUrl}/__sim${route}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`simulator ${route} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface InProcessApi {
  app: App;
  services: Services;
  gateway: GatewayClient;
  /** The API's own database handle and event bus, for measuring a component in isolation. */
  db: Db;
  events: EventBus;
  token: string;
  call(
    method: "GET" | "POST" | "PUT" | "DELETE",
    route: string,
    payload?: object,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- benchmark bodies are read loosely
  ): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/**
 * The API in-process over the real services, the gateway client pointed at `simulatorUrl`; `clock`
 * (default the system clock) is every service's clock, so a replay can run on simulated time;
 * `allocationLockProvider` replaces the allocation lock's database lease (the replay's one process).
 */
export async function inProcessApi(
  databaseUrl: string,
  simulatorUrl: string,
  options: { clock?: Clock; allocationLockProvider?: LockProvider } = {},
): Promise<InProcessApi> {
  const clock = options.clock ?? systemClock;
  const database = openDatabase(databaseUrl);
  const events = new EventBus();
  const gateway = createGatewayClient({
    projectsBaseUrl: simulatorUrl,
    usersBaseUrl: simulatorUrl,
    events,
    logger,
    maxRetries: 0,
  });
  const services = createServices({
    db: database.db,
    clock,
    events,
    logger,
    gateway,
    allocationLockProvider: options.allocationLockProvider,
  });
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
  return {
    app,
    services,
    gateway,
    db: database.db,
    events,
    token,
    async call(method, route, payload) {
      const response = await app.inject({
        method,
        url: route,
        headers: { authorization: `Bearer ${token}` },
        ...(payload === undefined ? {} : { payload }),
      });
      return { status: response.statusCode, body: response.body ? response.json() : undefined };
    },
    async close() {
      await app.close();
      await gateway.close();
      await database.close();
    },
  };
}

/** Prints a right-aligned markdown table. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padStart(widths[i]!)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 1) + ":").join("|")}|`);
  for (const row of rows) console.log(line(row));
}
