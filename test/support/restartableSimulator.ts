import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { freePort } from "../../src/config/freePort.ts";
import type { SimulatorDump } from "../../src/simulator/createSimulator.ts";
import { SERENITY_BIN } from "./cli.ts";

/**
 * The simulator as a real `serenity simulator` child process on a fixed port, so a test can take
 * it away as an outage does (SIGKILL: in-flight calls see their connection drop, new ones are
 * refused) and bring it back on the same origin from the dump it took just before.
 */
export interface RestartableSimulator {
  /** The same origin across restarts, e.g. `http://127.0.0.1:41234`. */
  url: string;
  running(): boolean;
  /** Dumps the store (`/__sim/dump`), then SIGKILLs the process: the outage starts. */
  crash(): Promise<SimulatorDump>;
  /** Starts it again on the same port from the last dump (or the seed, before any crash). */
  restart(): Promise<void>;
  control<T = unknown>(route: string, body?: unknown, method?: string): Promise<T>;
  dump(): Promise<SimulatorDump>;
  close(): Promise<void>;
}

export async function startRestartableSimulator(
  options: { seed?: string; settings?: Record<string, unknown> } = {},
): Promise<RestartableSimulator> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), "serenity-sim-"));
  const dumpFile = path.join(dir, "dump.json");
  let seed = options.seed ?? "gold";
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  async function control<T>(route: string, body?: unknown, method?: string): Promise<T> {
    const verb = method ?? (body === undefined ? "GET" : "POST");
    const response = await fetch(`${url}/__sim${route}`, {
      method: verb,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`simulator control ${verb} ${route} answered ${response.status}: ${text}`);
    return (text === "" ? undefined : JSON.parse(text)) as T;
  }

  async function start(): Promise<void> {
    const args = [SERENITY_BIN, "simulator", "--port", String(port), "--seed", seed];
    if (options.settings) args.push("--settings", JSON.stringify(options.settings));
    const started = spawn(process.execPath, args, {
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    started.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child = started;
    exited = new Promise((resolve) => started.once("exit", () => resolve()));
    // Ready = it answers; a hang guard only.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`the simulator exited: ${stderr}`);
      try {
        await control("/settings");
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`the simulator did not answer on ${url}: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  await start();
  return {
    url,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async crash() {
      const dump = await control<SimulatorDump>("/dump");
      child?.kill("SIGKILL");
      await exited;
      child = undefined;
      writeFileSync(dumpFile, JSON.stringify(dump));
      seed = dumpFile;
      return dump;
    },
    restart: start,
    control,
    dump: () => control<SimulatorDump>("/dump"),
    async close() {
      child?.kill("SIGKILL");
      await exited;
    },
  };
}
