import fs from "node:fs/promises";
import path from "node:path";

/**
 * The data directory (`SERENITY_DATA_DIR`): made to exist, or refused at once with one line that
 * says what to change. Node's own `mkdir({recursive: true})` is not used: on a path the kernel
 * will never create (under /proc, say) it spins forever instead of failing, and on a path that
 * is a file it answers a bare `EEXIST`.
 */

export class DataDirectoryError extends Error {
  override name = "DataDirectoryError";
}

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOENT: "the file system refused to create it",
  ENOSPC: "no space left on the device",
  ENOTDIR: "a part of the path is a file",
};

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  return REASONS[code] ?? code ?? "unknown error";
}

function refuse(dir: string, why: string): DataDirectoryError {
  return new DataDirectoryError(
    `SERENITY_DATA_DIR ${dir} cannot be used: ${why}; point SERENITY_DATA_DIR at a writable directory`,
  );
}

/**
 * Creates `dir` (mode 0700; missing parents as the umask says) unless it exists as a directory;
 * checks it is writable.
 */
export async function ensureDataDirectory(dir: string): Promise<void> {
  const target = path.resolve(dir);
  const missing: string[] = [];
  for (let current = target; ; current = path.dirname(current)) {
    try {
      const stats = await fs.stat(current);
      if (!stats.isDirectory())
        throw refuse(target, current === target ? "it is a file, not a directory" : `${current} is a file`);
      break;
    } catch (error) {
      if (error instanceof DataDirectoryError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || current === path.dirname(current)) throw refuse(target, reasonOf(error));
      missing.unshift(current);
    }
  }
  for (const directory of missing) {
    try {
      // The data directory holds secrets (0600 files): it is made private to its owner.
      await fs.mkdir(directory, { mode: directory === target ? 0o700 : 0o777 });
    } catch (error) {
      // Another process starting at the same moment may have made it first.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw refuse(target, reasonOf(error));
    }
  }
  try {
    await fs.access(target, fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    throw refuse(target, reasonOf(error));
  }
}
