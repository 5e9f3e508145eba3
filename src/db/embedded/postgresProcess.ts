import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";

import { EmbeddedDatabaseError } from "./embeddedDatabaseError.ts";
import type { PostgresBinaries } from "./postgresBinaries.ts";
import type { PostgresUser } from "./postgresUser.ts";

/**
 * `initdb` and `postgres` as child processes (ADR 0018). Every way a child can fail — it cannot be
 * spawned (EACCES, ENOENT), it exits non-zero, it dies before it is ready — rejects the promise
 * with an EmbeddedDatabaseError; nothing becomes an unhandled 'error' event. As root the children
 * run as the `postgres` user, from the cluster's parent directory (which that user can enter).
 */

export interface ClusterCommand {
  binaries: PostgresBinaries;
  clusterDir: string;
  /** The user to run as (Serenity runs as root), or undefined to run as Serenity's own user. */
  user: PostgresUser | undefined;
  onLog?: (line: string) => void;
}

/** Server messages in English, whatever the machine's locale: readiness is read from them. */
const LOCALE = "C";
const READY = "database system is ready to accept connections";

function options(command: ClusterCommand): SpawnOptions {
  return {
    cwd: path.dirname(command.clusterDir),
    env: { ...process.env, LC_MESSAGES: LOCALE },
    stdio: ["ignore", "pipe", "pipe"],
    ...(command.user ? { uid: command.user.uid, gid: command.user.gid } : {}),
  };
}

function couldNotRun(
  file: string,
  command: ClusterCommand,
  error: NodeJS.ErrnoException,
): EmbeddedDatabaseError {
  const as = command.user ? ` as the user "postgres"` : "";
  return new EmbeddedDatabaseError(
    `The embedded PostgreSQL could not run ${file}${as} (${error.code ?? error.message}): run "npm install" again, or set DATABASE_URL`,
    { cause: error },
  );
}

function tail(output: string): string {
  return output.trim().split("\n").slice(-5).join(" | ");
}

/** Creates the cluster in `clusterDir` (made here: owned by the user PostgreSQL runs as, 0700). */
export async function initialiseCluster(
  command: ClusterCommand & { superuser: string; password: string },
): Promise<void> {
  const { clusterDir, user } = command;
  await fs.mkdir(clusterDir, { mode: 0o700 });
  if (user) await fs.chown(clusterDir, user.uid, user.gid);
  // The password reaches initdb in a file only the user it runs as can read, removed at once.
  const passwordDir = await fs.mkdtemp(path.join(path.dirname(clusterDir), ".initdb-"));
  try {
    const passwordFile = path.join(passwordDir, "password");
    await fs.writeFile(passwordFile, `${command.password}\n`, { mode: 0o600, flag: "wx" });
    if (user) {
      await fs.chown(passwordFile, user.uid, user.gid);
      await fs.chown(passwordDir, user.uid, user.gid);
    }
    const initdb = command.binaries.initdb;
    const child = spawn(
      initdb,
      [
        `--pgdata=${clusterDir}`,
        "--auth=password",
        `--username=${command.superuser}`,
        `--pwfile=${passwordFile}`,
        `--lc-messages=${LOCALE}`,
      ],
      options(command),
    );
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      command.onLog?.(chunk.toString());
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    await new Promise<void>((resolve, reject) => {
      child.on("error", (error) => reject(couldNotRun(initdb, command, error)));
      child.once("close", (code, signal) => {
        if (code === 0) resolve();
        else
          reject(
            new EmbeddedDatabaseError(
              `initdb for the embedded PostgreSQL in ${clusterDir} failed (${code ?? signal}): ${tail(output)}`,
            ),
          );
      });
    });
  } finally {
    await fs.rm(passwordDir, { recursive: true, force: true });
  }
}

export interface RunningPostgres {
  pid: number;
  /** Fast shutdown (SIGINT); resolves once the server has exited. */
  stop(): Promise<void>;
}

/** Servers this process started and has not stopped: told to shut down when the process exits. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGINT");
});

/** Starts the server on `port` (loopback) and resolves once it accepts connections. */
export async function startPostgres(command: ClusterCommand & { port: number }): Promise<RunningPostgres> {
  const file = command.binaries.postgres;
  const child = spawn(file, ["-D", command.clusterDir, "-p", String(command.port)], options(command));
  let output = "";
  let ready = false;
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  // Read for the life of the server: a pipe nobody drains would stall its logging.
  child.stdout!.on("data", (chunk: Buffer) => command.onLog?.(chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      command.onLog?.(text);
      if (ready) return;
      output += text;
      if (output.includes(READY)) {
        ready = true;
        resolve();
      }
    });
    child.on("error", (error) => reject(couldNotRun(file, command, error)));
    child.once("close", (code, signal) =>
      reject(
        new EmbeddedDatabaseError(
          `The embedded PostgreSQL server in ${command.clusterDir} stopped before it was ready (${code ?? signal}): ${tail(output)}`,
        ),
      ),
    );
  });
  running.add(child);
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid!,
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
        await exited;
        running.delete(child);
      })();
      return stopping;
    },
  };
}
