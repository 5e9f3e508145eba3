import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

import pg from "pg";

import { ensureDataDirectory } from "../config/dataDirectory.ts";
import { freePort } from "../config/freePort.ts";
import type { Logger } from "../observability/logger.ts";
import { clusterLocation } from "./embedded/clusterLocation.ts";
import { EmbeddedDatabaseError } from "./embedded/embeddedDatabaseError.ts";
import { postgresBinaries } from "./embedded/postgresBinaries.ts";
import { initialiseCluster, startPostgres } from "./embedded/postgresProcess.ts";
import { postgresUser } from "./embedded/postgresUser.ts";
import { reachableBinaries } from "./embedded/stagedBinaries.ts";
import { stagingDirectory } from "./embedded/stagingDirectory.ts";

export { EmbeddedDatabaseError };

/**
 * One embedded PostgreSQL server per data directory (SPEC §4 rule 4). The first process takes an
 * exclusive lockfile and starts the server; later processes (a worker next to `serve`) read the
 * lockfile and connect to the running server instead of starting another. A lockfile left by a
 * crashed owner is taken over; an orphaned server from that owner is shut down first. As root,
 * the server runs as the `postgres` user, from binaries and a cluster that user can reach: staged
 * outside the checkout when they are not (ADR 0018).
 */

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the server and must stop it. */
  owner: boolean;
  /** The PostgreSQL cluster: `<dataDir>/postgres`, or a staged one (ADR 0018); undefined when joined. */
  clusterDir: string | undefined;
  release(): Promise<void>;
}

interface LockContent {
  pid: number;
  port: number;
  state: "starting" | "ready";
}

const DATABASE_NAME = "serenity";
const USER = "postgres";
const WAIT_FOR_OWNER_MS = 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readSecretFile(file: string): Promise<string> {
  try {
    return (await fs.readFile(file, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    const secret = randomBytes(24).toString("base64url");
    try {
      await fs.writeFile(file, secret, { mode: 0o600, flag: "wx" });
      return secret;
    } catch (writeError) {
      if ((writeError as NodeJS.ErrnoException).code === "EEXIST")
        return (await fs.readFile(file, "utf8")).trim();
      throw writeError;
    }
  }
}

async function readLock(lockPath: string): Promise<LockContent | undefined> {
  try {
    return JSON.parse(await fs.readFile(lockPath, "utf8")) as LockContent;
  } catch {
    return undefined;
  }
}

function urlFor(port: number, password: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
}

/** Stops a server whose owner died without stopping it (its pid is in postmaster.pid). */
async function stopOrphanedServer(clusterDir: string, logger: Logger): Promise<void> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number((await fs.readFile(pidFile, "utf8")).split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return;
  logger.warn({ pid }, "stopping an embedded PostgreSQL server orphaned by a crashed owner");
  process.kill(pid, "SIGINT");
  for (let waited = 0; processAlive(pid) && waited < 30_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startServer(
  dataDir: string,
  password: string,
  logger: Logger,
): Promise<{ port: number; clusterDir: string; stop(): Promise<void> }> {
  const user = await postgresUser();
  // Asked for only as root (a user to run as), when something must be staged (ADR 0018).
  const staging = () => stagingDirectory(user!);
  const location = await clusterLocation(dataDir, user, staging, logger);
  const binaries = await reachableBinaries(await postgresBinaries(), user, staging, logger);
  const { clusterDir } = location;
  const command = {
    binaries,
    clusterDir,
    user,
    onLog: (message: string) => logger.trace({ postgres: message.trim() }, "embedded postgres"),
  };
  await stopOrphanedServer(clusterDir, logger);
  if (!existsSync(path.join(clusterDir, "PG_VERSION"))) {
    if (location.recorded)
      logger.warn(
        { clusterDir },
        "the staged PostgreSQL cluster of this data directory is gone (was the temporary directory cleared?): making a new, empty one",
      );
    await fs.rm(clusterDir, { recursive: true, force: true });
    await initialiseCluster({ ...command, superuser: USER, password });
  }
  // Picked just before the server binds it, not before `initdb` (seconds in which it could go).
  const port = await freePort();
  const server = await startPostgres({ ...command, port });
  try {
    const client = new pg.Client({
      connectionString: urlFor(port, password).replace(`/${DATABASE_NAME}`, "/postgres"),
    });
    await client.connect();
    try {
      const exists = await client.query("select 1 from pg_database where datname = $1", [DATABASE_NAME]);
      if (exists.rowCount === 0) await client.query(`create database ${DATABASE_NAME}`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { port, clusterDir, stop: () => server.stop() };
}

/** Starts the embedded server for `dataDir`, or connects to the one another process runs. */
export async function acquireEmbeddedDatabase(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  await ensureDataDirectory(dataDir);
  const lockPath = path.join(dataDir, "postgres.lock.json");
  const password = await readSecretFile(path.join(dataDir, "postgres-password"));
  const deadline = Date.now() + WAIT_FOR_OWNER_MS;

  for (;;) {
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(lockPath, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }

    if (handle) {
      await handle.writeFile(
        JSON.stringify({ pid: process.pid, port: 0, state: "starting" } satisfies LockContent),
      );
      await handle.close();
      try {
        const server = await startServer(dataDir, password, logger);
        await fs.writeFile(
          lockPath,
          JSON.stringify({ pid: process.pid, port: server.port, state: "ready" } satisfies LockContent),
        );
        // One release, however many callers (a shutdown's normal path and its forced path may
        // both get here): each waits until the server has really stopped.
        let releasing: Promise<void> | undefined;
        return {
          url: urlFor(server.port, password),
          owner: true,
          clusterDir: server.clusterDir,
          release: () =>
            (releasing ??= (async () => {
              await server.stop();
              await fs.rm(lockPath, { force: true });
            })()),
        };
      } catch (error) {
        await fs.rm(lockPath, { force: true });
        throw error;
      }
    }

    const lock = await readLock(lockPath);
    if (lock && processAlive(lock.pid)) {
      if (lock.state === "ready") {
        logger.info(
          { ownerPid: lock.pid, port: lock.port },
          "connecting to the embedded PostgreSQL server another process runs",
        );
        return {
          url: urlFor(lock.port, password),
          owner: false,
          clusterDir: undefined,
          release: async () => {},
        };
      }
    } else {
      // The owner died (or the file is unreadable): take the lock over.
      logger.warn({ lockPath, stalePid: lock?.pid }, "removing a stale embedded PostgreSQL lockfile");
      await fs.rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new EmbeddedDatabaseError(
        `Another process (pid ${lock.pid}) is still starting the embedded PostgreSQL server in ${dataDir}; set DATABASE_URL or stop it`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
