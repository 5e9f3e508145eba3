import { constants } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { EmbeddedDatabaseError } from "./embeddedDatabaseError.ts";
import type { PostgresUser } from "./postgresUser.ts";
import { closedToPostgres } from "./reachability.ts";

/**
 * Where the embedded PostgreSQL's binaries and cluster are staged when Serenity runs as root and
 * the `postgres` user cannot reach them where they are (ADR 0018): `serenity-embedded-postgres`
 * in the system's temporary directory, owned by root, mode 0711 (others may pass, not list or
 * write). The temporary directory is world-writable, so the directory is made with mkdir (which
 * never follows a link), opened without following a link, and refused unless it is a directory
 * root owns that nobody else may write; every directory above it must be root's and closed to
 * others' writes unless sticky, so nobody else can swap it for another.
 */
export const STAGING_DIRECTORY_NAME = "serenity-embedded-postgres";
const MODE = 0o711;

function untrusted(dir: string, why: string): EmbeddedDatabaseError {
  return new EmbeddedDatabaseError(
    `The staging directory ${dir} of the embedded PostgreSQL cannot be trusted: ${why}; remove it (as root), point TMPDIR at another directory, or set DATABASE_URL`,
  );
}

async function checkAncestors(dir: string, user: PostgresUser): Promise<void> {
  for (let current = dir; ; current = path.dirname(current)) {
    const stats = await fs.stat(current);
    const othersMayWrite = (stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0;
    if (stats.uid !== 0 || othersMayWrite)
      throw untrusted(
        path.join(dir, STAGING_DIRECTORY_NAME),
        `${current} ${stats.uid !== 0 ? `belongs to uid ${stats.uid}` : "is writable by others and not sticky"}`,
      );
    if (current === path.dirname(current)) break;
  }
  const closed = await closedToPostgres(dir, user);
  if (closed.length > 0)
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL runs as the user "postgres" (Serenity runs as root), which cannot enter ${closed.join(", ")} to reach its staging directory: point TMPDIR at a directory it can pass (such as /tmp), or set DATABASE_URL`,
    );
}

/** Opens `dir` without following a link, checks it, and gives it mode 0711. */
async function verify(dir: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ELOOP" && code !== "ENOTDIR") throw error;
    const link = (await fs.lstat(dir).catch(() => undefined))?.isSymbolicLink();
    throw untrusted(dir, link ? "it is a symbolic link" : "it is not a directory");
  }
  try {
    const stats = await handle.stat();
    if (stats.uid !== 0) throw untrusted(dir, `it belongs to uid ${stats.uid}, not root`);
    if ((stats.mode & 0o022) !== 0) throw untrusted(dir, "others may write to it");
    if ((stats.mode & 0o7777) !== MODE) await handle.chmod(MODE);
  } finally {
    await handle.close();
  }
}

/** Makes (or checks) the staging directory `dir`, whose name must be STAGING_DIRECTORY_NAME. */
export async function ensureStagingDirectory(dir: string, user: PostgresUser): Promise<string> {
  if (path.basename(dir) !== STAGING_DIRECTORY_NAME || !path.isAbsolute(dir))
    throw untrusted(dir, `it is not a directory named ${STAGING_DIRECTORY_NAME}`);
  await checkAncestors(path.dirname(dir), user);
  try {
    await fs.mkdir(dir, { mode: MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  await verify(dir);
  return dir;
}

/** The staging directory in the system's temporary directory. */
export async function stagingDirectory(user: PostgresUser): Promise<string> {
  const base = await fs.realpath(os.tmpdir());
  return ensureStagingDirectory(path.join(base, STAGING_DIRECTORY_NAME), user);
}
