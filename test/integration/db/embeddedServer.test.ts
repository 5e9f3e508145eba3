import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { acquireEmbeddedDatabase } from "../../../src/db/embeddedServer.ts";
import { createLogger } from "../../../src/observability/logger.ts";

const logger = createLogger({ level: "silent" });
let dataDir: string;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-embedded-"));
  await fs.chmod(dataDir, 0o755);
});
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

async function canQuery(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

describe("the embedded PostgreSQL server", () => {
  it("is owned by the first acquirer; a second joins it instead of starting another", async () => {
    const first = await acquireEmbeddedDatabase(dataDir, logger);
    const second = await acquireEmbeddedDatabase(dataDir, logger);
    try {
      expect(first.owner).toBe(true);
      expect(second.owner).toBe(false);
      expect(second.url).toBe(first.url);
      expect(await canQuery(second.url)).toBe(true);
      await second.release();
      expect(await canQuery(first.url)).toBe(true);
    } finally {
      await first.release();
    }
    expect(await canQuery(first.url)).toBe(false);
    await expect(fs.access(path.join(dataDir, "postgres.lock.json"))).rejects.toThrow();
  });

  it("takes over a lockfile left by a dead owner and keeps the data", async () => {
    const first = await acquireEmbeddedDatabase(dataDir, logger);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    await client.query("create table if not exists survivor (id int)");
    await client.end();
    await first.release();

    // A crashed owner leaves its lockfile behind; pid 2^22+1 is beyond Linux's pid range.
    await fs.writeFile(
      path.join(dataDir, "postgres.lock.json"),
      JSON.stringify({ pid: 4194305, port: 1, state: "ready" }),
    );
    const next = await acquireEmbeddedDatabase(dataDir, logger);
    try {
      expect(next.owner).toBe(true);
      const check = new pg.Client({ connectionString: next.url });
      await check.connect();
      const result = await check.query("select to_regclass('survivor') as t");
      await check.end();
      expect(result.rows[0].t).toBe("survivor");
    } finally {
      await next.release();
    }
  });
});
