import { type ChildProcess, spawn } from "node:child_process";

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

export function spawnServe(
  env: Record<string, string>,
  options: { withWorker?: boolean } = {},
): Promise<ServeProcess> {
  const args = [SERENITY_BIN, "serve", ...(options.withWorker ? ["--with-worker"] : [])];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, PORT: "0", LOG_LEVEL: "info", ...env },
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
