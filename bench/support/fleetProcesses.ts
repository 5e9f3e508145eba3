/**
 * The fleet benchmark's child processes: `serenity serve`, `serenity worker` and `serenity
 * simulator`, each logging (warn and up) to a file of the run's log directory; pausing a process
 * (SIGSTOP / SIGCONT), killing one outright, and the CPU each used (/proc, Linux only).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const BIN = path.resolve(import.meta.dirname, "../../bin/serenity.mjs");
/** Linux clock ticks per second (USER_HZ), what /proc/<pid>/stat counts in. */
const TICKS_PER_SECOND = 100;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Proc {
  name: string;
  child: ChildProcess;
  exited?: string;
}

export function spawnSerenity(
  logDir: string,
  name: string,
  argv: string[],
  env: Record<string, string>,
): Proc {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = createWriteStream(path.join(logDir, `${name}.log`), { flags: "a" });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const proc: Proc = { name, child };
  child.on("exit", (code, signal) => {
    proc.exited = `code ${code} signal ${signal}`;
  });
  return proc;
}

export function running(proc: Proc): boolean {
  return proc.child.exitCode === null && proc.child.signalCode === null;
}

export async function stopAll(procs: Proc[]): Promise<void> {
  for (const proc of procs) {
    if (!running(proc)) continue;
    proc.child.kill("SIGCONT");
    proc.child.kill("SIGTERM");
  }
  const deadline = Date.now() + 8_000;
  while (Date.now() < deadline && procs.some(running)) await sleep(100);
  for (const proc of procs) if (running(proc)) proc.child.kill("SIGKILL");
}

export async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`fleet: ${what} not reached within ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}

/** CPU seconds of one process (and of its children it has waited for), 0 when it is gone. */
export function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    return ticks / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** A server and its live children (PostgreSQL's postmaster and its backends). */
export function cpuSecondsOfTree(pid: number | undefined): number {
  if (pid === undefined) return 0;
  let total = cpuSecondsOf(pid);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) total += cpuSecondsOf(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export function rssMbOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 102.4) / 10;
  } catch {
    return 0;
  }
}
