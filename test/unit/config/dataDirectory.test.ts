import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { DataDirectoryError, ensureDataDirectory } from "../../../src/config/dataDirectory.ts";

let scratch: string;
beforeAll(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-datadir-"));
});
afterAll(() => fs.rm(scratch, { recursive: true, force: true }));

describe("ensureDataDirectory", () => {
  it("creates a missing directory and its missing parents", async () => {
    const dir = path.join(scratch, "a", "b", "c");
    await ensureDataDirectory(dir);
    expect((await fs.stat(dir)).isDirectory()).toBe(true);
    await ensureDataDirectory(dir); // and accepts it when it exists
  });

  it("makes the data directory private to its owner (0700): it holds secrets", async () => {
    const dir = path.join(scratch, "private", "data");
    await ensureDataDirectory(dir);
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
  });

  it("refuses a path that is a file with one line saying so", async () => {
    const file = path.join(scratch, "a-file");
    await fs.writeFile(file, "x");
    const error = await ensureDataDirectory(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataDirectoryError);
    expect((error as Error).message).toBe(
      `SERENITY_DATA_DIR ${file} cannot be used: it is a file, not a directory; point SERENITY_DATA_DIR at a writable directory`,
    );
    await expect(ensureDataDirectory(path.join(file, "below"))).rejects.toThrow(
      /cannot be used: a part of the path is a file/,
    );
  });

  it("refuses a path the kernel will not create (under /proc) instead of spinning", async () => {
    // Node's recursive mkdir loops forever on this path; ours fails on the first refusal.
    await expect(ensureDataDirectory("/proc/serenity-data-dir-test")).rejects.toThrow(
      "SERENITY_DATA_DIR /proc/serenity-data-dir-test cannot be used: the file system refused to create it",
    );
  });
});
