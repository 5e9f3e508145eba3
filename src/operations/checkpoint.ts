import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";

import { z } from "zod";

/**
 * The sweep's resume file (spec/operations.md §1): brands already handled, and brands that failed
 * with their error code. Failed brands are never marked done, so a resume only revisits them when
 * asked to (`--retry-failed`).
 */
export interface SweepCheckpoint {
  version: 1;
  done: string[];
  failed: Record<string, string>;
}

export const CHECKPOINT_VERSION = 1;
export const DEFAULT_CHECKPOINT_FILE = "sweep-checkpoint.json";

const checkpointSchema = z
  .object({
    version: z.literal(CHECKPOINT_VERSION),
    done: z.array(z.string()),
    failed: z.record(z.string(), z.string()),
  })
  .strict();

export class CheckpointError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CheckpointError";
  }
}

export function emptyCheckpoint(): SweepCheckpoint {
  return { version: CHECKPOINT_VERSION, done: [], failed: {} };
}

/**
 * Reads a checkpoint; a missing file is an empty one. Anything else that cannot be read or does
 * not parse is a CheckpointError: silently starting over could repeat a fleet run, so only an
 * explicit `--fresh` discards it.
 */
export async function readCheckpoint(file: string): Promise<SweepCheckpoint> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyCheckpoint();
    throw new CheckpointError(`checkpoint ${file} cannot be read (use --fresh to start over)`, {
      cause: error,
    });
  }
  let parsed;
  try {
    parsed = checkpointSchema.safeParse(JSON.parse(text));
  } catch (error) {
    throw new CheckpointError(`checkpoint ${file} is not valid JSON (use --fresh to start over)`, {
      cause: error,
    });
  }
  if (!parsed.success) {
    throw new CheckpointError(`checkpoint ${file} has an unknown shape (use --fresh to start over)`);
  }
  return parsed.data;
}

/**
 * Writes the checkpoint crash-safely: a temp file next to it, created exclusively (never reusing
 * a stray file), flushed, then renamed over the old one — a crash leaves either version whole.
 */
export async function writeCheckpoint(file: string, checkpoint: SweepCheckpoint): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(checkpoint)}\n`, "utf8");
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, file);
}
