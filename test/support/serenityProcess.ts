import { type ChildProcess, spawn } from "node:child_process";

import { SOURCE_BIN } from "./cli.ts";

/** A `serenity start` child process, parsed from the banner it prints. */
export interface StartedSerenity {
  child: ChildProcess;
  url: string;
  token: string;
  demoOrgId: string;
  output(): string;
  /** Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `dataDir` undefined: the default (`./.serenity` of `checkout.cwd`), as `npm start` there uses;
 * `checkout`: another checkout's `bin/serenity.mjs`, run from that checkout. It runs
 * `bin/serenity.mjs` itself (tsx, no bundle): `serenity start` from a fresh clone is the subject.
 */
export function startSerenity(
  dataDir: string | undefined,
  env: Record<string, string> = {},
  checkout: { bin: string; cwd: string } | undefined = undefined,
): Promise<StartedSerenity> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    SERENITY_DATA_DIR: dataDir,
    PORT: "0",
    LOG_LEVEL: "warn",
    DATABASE_URL: "",
    SEMRUSH_PROJECTS_BASE_URL: "",
    SEMRUSH_USERS_BASE_URL: "",
    ...env,
  };
  if (dataDir === undefined) delete childEnv.SERENITY_DATA_DIR;
  const child = spawn(process.execPath, [checkout?.bin ?? SOURCE_BIN, "start"], {
    env: childEnv,
    cwd: checkout?.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    // A hang guard, not a speed target: a cold start on a loaded machine can take a while.
    const timer = setTimeout(
      () => reject(new Error(`start did not print its banner in 120 s:\n${stdout}\n${stderr}`)),
      120_000,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /running at (http:\/\/\S+)/.exec(stdout)?.[1];
      const token = /SERENITY_TOKEN=(\S+)/.exec(stdout)?.[1];
      const demoOrgId = /Demo org:\s+(\S+)/.exec(stdout)?.[1];
      if (url && token && demoOrgId && stdout.includes("Ctrl-C")) {
        clearTimeout(timer);
        resolve({
          child,
          url,
          token,
          demoOrgId,
          output: () => stdout + stderr,
          stop: () => {
            child.kill("SIGINT");
            return exited;
          },
        });
      }
    });
    child.on("exit", (code) => reject(new Error(`start exited early (${code}):\n${stdout}\n${stderr}`)));
  });
}
