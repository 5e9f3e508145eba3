import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

import type { Logger } from "../../observability/logger.ts";
import { EmbeddedDatabaseError } from "./embeddedDatabaseError.ts";
import type { PostgresUser } from "./postgresUser.ts";
import { closedToPostgres } from "./reachability.ts";
import { ensureStagingDirectory } from "./stagingDirectory.ts";

/**
 * Where the cluster of a data directory lives (ADR 0018). `<dataDir>/postgres` unless Serenity
 * runs as root and the `postgres` user cannot pass a directory above the data directory (a
 * private home, a `mktemp -d` parent): then in the staging directory, under a name made once from
 * a hash of the data directory's real path and a random part, recorded in `<dataDir>/postgres-cluster`
 * so every later start finds the same cluster. The record is the choice: a data directory that
 * has one keeps its staged cluster, one with a cluster of its own keeps that, and a new data
 * directory (even at a path used before) gets a cluster of its own, made for its own password.
 */

export interface ClusterLocation {
  clusterDir: string;
  /** True when the cluster lives in the staging directory (the data directory stays 0700). */
  staged: boolean;
  /** True when the data directory had recorded it before (its absence then means it was lost). */
  recorded: boolean;
}

export const CLUSTER_RECORD = "postgres-cluster";
const STAGED_NAME = /^cluster-[0-9a-f]{16}-[0-9a-f]{8}$/;

async function readRecord(file: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(file, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Search permission for others on the data directory itself (enter, not list: its secrets stay 0600). */
async function letPostgresIntoDataDirectory(dataDir: string, logger: Logger): Promise<void> {
  const own = await fs.stat(dataDir);
  if ((own.mode & 0o001) !== 0) return;
  await fs.chmod(dataDir, (own.mode & 0o7777) | 0o001);
  logger.info({ dataDir }, "gave the data directory search permission for the postgres user");
}

export async function clusterLocation(
  dataDir: string,
  user: PostgresUser | undefined,
  stagingDir: () => Promise<string>,
  logger: Logger,
): Promise<ClusterLocation> {
  const inPlace = path.join(dataDir, "postgres");
  if (!user) return { clusterDir: inPlace, staged: false, recorded: false };

  const recordFile = path.join(dataDir, CLUSTER_RECORD);
  const recorded = await readRecord(recordFile);
  if (recorded !== undefined) {
    if (!path.isAbsolute(recorded) || !STAGED_NAME.test(path.basename(recorded)))
      throw new EmbeddedDatabaseError(
        `${recordFile} does not name a staged PostgreSQL cluster (${JSON.stringify(recorded)}): remove the file to make a new one, or set DATABASE_URL`,
      );
    await ensureStagingDirectory(path.dirname(recorded), user);
    return { clusterDir: recorded, staged: true, recorded: true };
  }

  const closed = await closedToPostgres(path.dirname(dataDir), user);
  if (closed.length === 0) {
    await letPostgresIntoDataDirectory(dataDir, logger);
    return { clusterDir: inPlace, staged: false, recorded: false };
  }
  if (existsSync(path.join(inPlace, "PG_VERSION")))
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL runs as the user "postgres" (Serenity runs as root), which cannot enter ${closed.join(", ")} to reach the cluster in ${inPlace}: run "chmod o+x ${closed.join(" ")}", or set DATABASE_URL`,
    );

  const key = createHash("sha256")
    .update(await fs.realpath(dataDir))
    .digest("hex")
    .slice(0, 16);
  const clusterDir = path.join(await stagingDir(), `cluster-${key}-${randomBytes(4).toString("hex")}`);
  await fs.writeFile(recordFile, `${clusterDir}\n`, { mode: 0o600, flag: "wx" });
  logger.info(
    { dataDir, clusterDir, closed },
    "the postgres user cannot reach the data directory: its PostgreSQL cluster lives in the staging directory",
  );
  return { clusterDir, staged: true, recorded: false };
}
