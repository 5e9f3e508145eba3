import { spawn } from "node:child_process";
import path from "node:path";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `bin/serenity.mjs`: the TypeScript sources through tsx, as `npm start` runs them. */
export const SOURCE_BIN = path.resolve("bin/serenity.mjs");

/**
 * The CLI tests spawn: the run's bundle of the same sources (built by globalSetup, see
 * `cliBundle.ts`; it starts in a fraction of tsx's time), or `bin/serenity.mjs` outside a vitest
 * run. The tests whose subject is the entry point a user runs (test/e2e) use SOURCE_BIN.
 */
export const SERENITY_BIN = process.env.SERENITY_TEST_BIN ?? SOURCE_BIN;

/** Runs `serenity <args>` as a real child process with the given environment overrides. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERENITY_BIN, ...args], {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
