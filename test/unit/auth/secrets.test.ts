import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { readOrCreateSecret } from "../../../src/auth/secrets.ts";

describe("readOrCreateSecret", () => {
  it("gives every concurrent caller the same, non-empty, private value", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-secret-"));
    const values = await Promise.all(
      Array.from({ length: 20 }, () => readOrCreateSecret(dir, "auth-secret")),
    );
    expect(new Set(values).size).toBe(1);
    expect(Buffer.from(values[0]!, "base64")).toHaveLength(32);
    expect((await fs.stat(path.join(dir, "auth-secret"))).mode & 0o777).toBe(0o600);
    expect((await fs.readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("refuses an empty secret file instead of using an empty key", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-secret-"));
    await fs.writeFile(path.join(dir, "auth-secret"), "");
    await expect(readOrCreateSecret(dir, "auth-secret")).rejects.toThrow(/empty/);
    await fs.rm(dir, { recursive: true, force: true });
  });
});
