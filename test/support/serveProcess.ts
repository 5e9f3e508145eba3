import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";

import { SERENITY_BIN } from "./cli.ts";

/** A real `serenity serve` child process (optionally `--with-worker`), parsed from its log. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM; resolves with the exit code (null when a signal ended it). */
  stop(): Promise<number | null>;
}

/** Debian's libfaketime (package `faketime`, installed by .ci/run). */
export const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/**
 * The environment that runs a process with its wall clock shifted by `offset` (`+5m`, `-5m`):
 * libfaketime preloaded, which Node's Date.now() and every timestamp it writes read. Its monotonic
 * clock (performance.now, timers) is left alone, as a machine's wall clock drifting or stepped is.
 */
export function shiftedClockEnv(offset: string): Record<string, string> {
  if (!fs.existsSync(LIBFAKETIME)) {
    throw new Error(`${LIBFAKETIME} is missing: install Debian's faketime package (.ci/run does)`);
  }
  return { LD_PRELOAD: LIBFAKETIME, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: "1" };
}

export function spawnServe(
  env: Record<string, string>,
  options: { withWorker?: boolean; clockOffset?: string } = {},
): Promise<ServeProcess> {
  const args = [SERENITY_BIN, "serve", ...(options.withWorker ? ["--with-worker"] : [])];
  const shifted = options.clockOffset ? shiftedClockEnv(options.clockOffset) : {};
  const child = spawn(process.execPath, args, {
    env: { ...process.env, PORT: "0", LOG_LEVEL: "info", ...env, ...shifted },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`serve exited early (${code}):\n${output}`));
    child.once("exit", onExit);
    const look = () => {
      const url = /"url":"(http:\/\/[^"]+)".*"msg":"serenity API listening"/.exec(output)?.[1];
      if (!url) return;
      child.stdout!.off("data", look);
      child.off("exit", onExit);
      resolve({
        child,
        url,
        output: () => output,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    };
    child.stdout!.on("data", look);
  });
}
