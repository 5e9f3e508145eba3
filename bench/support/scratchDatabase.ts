import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import pg from "pg";

import { acquireEmbeddedDatabase } from "../../src/db/embeddedServer.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { createLogger } from "../../src/observability/logger.ts";

const logger = createLogger({ level: process.env.BENCH_LOG_LEVEL ?? "error" });

/**
 * Every benchmark's database: a fresh migrated database on `DATABASE_URL`'s server when set, else
 * on an embedded PostgreSQL in a temporary directory; `drop()` removes it (and stops the server).
 */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh migrated database; dropped (and the embedded server released) by `drop()`. */
export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  let tempDir: string | undefined;
  let release: (() => Promise<void>) | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    tempDir = await fs.mkdtemp(path.join(os.tmpdir(), `serenity-${prefix}-`));
    const embedded = await acquireEmbeddedDatabase(tempDir, logger);
    adminUrl = withDatabase(embedded.url, "postgres");
    release = () => embedded.release();
  }
  const name = `serenity_bench_${prefix.replace(/\W/g, "_")}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = withDatabase(adminUrl, name);
  await runMigrations(url);
  return {
    url,
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      await release?.();
      if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
    },
  };
}
