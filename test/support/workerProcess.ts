import { type ChildProcess, spawn } from "node:child_process";

import { SERENITY_BIN } from "./cli.ts";

/** A real `serenity worker` child process, for crash tests (SIGKILL it at a chosen moment). */
export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the worker logged that it started (migrations done, queue started). */
  started: Promise<void>;
  exited: Promise<void>;
  hasStarted(): boolean;
  /** Everything it printed (only with `keepOutput`; else what it printed before it started). */
  output(): string;
}

export function spawnWorker(
  env: Record<string, string>,
  options: { concurrency?: number; keepOutput?: boolean; args?: string[] } = {},
): WorkerProcess {
  const args = [SERENITY_BIN, "worker", "--shutdown-grace-ms", "2000", ...(options.args ?? [])];
  if (options.concurrency) args.push("--concurrency", String(options.concurrency));
  const child = spawn(process.execPath, args, {
    // Any free probe port: several workers run side by side (the default 8081 would clash).
    env: { ...process.env, LOG_LEVEL: "info", SERENITY_WORKER_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let started = false;
  let output = "";
  const startedPromise = new Promise<void>((resolve) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (started && !options.keepOutput) return;
      output += chunk.toString("utf8");
      if (!started && output.includes("job worker started")) {
        started = true;
        if (!options.keepOutput) output = "";
        resolve();
      }
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, started: startedPromise, exited, hasStarted: () => started, output: () => output };
}
