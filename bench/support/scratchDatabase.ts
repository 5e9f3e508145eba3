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
  /** True when `pg_stat_statements` is installed in the database (asked with `statementStats`). */
  statementStats: boolean;
  drop(): Promise<void>;
}

/**
 * An embedded server with `pg_stat_statements` preloaded: the library is only loaded at start, so
 * the setting is written (ALTER SYSTEM, kept in the cluster) and the server started once more.
 */
async function embeddedWithStatementStats(tempDir: string) {
  const first = await acquireEmbeddedDatabase(tempDir, logger);
  const client = new pg.Client({ connectionString: withDatabase(first.url, "postgres") });
  await client.connect();
  await client.query("alter system set shared_preload_libraries = 'pg_stat_statements'");
  await client.end();
  await first.release();
  return acquireEmbeddedDatabase(tempDir, logger);
}

/**
 * A fresh migrated database; dropped (and the embedded server released) by `drop()`. With
 * `statementStats`, `pg_stat_statements` is installed in it when the server can load it (always for
 * the embedded server; on DATABASE_URL's only when its operator preloaded the library).
 */
export async function scratchDatabase(
  prefix: string,
  options: { statementStats?: boolean } = {},
): Promise<ScratchDatabase> {
  let tempDir: string | undefined;
  let release: (() => Promise<void>) | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    tempDir = await fs.mkdtemp(path.join(os.tmpdir(), `serenity-${prefix}-`));
    const embedded = options.statementStats
      ? await embeddedWithStatementStats(tempDir)
      : await acquireEmbeddedDatabase(tempDir, logger);
    adminUrl = withDatabase(embedded.url, "postgres");
    release = () => embedded.release();
  }
  const name = `serenity_bench_${prefix.replace(/\W/g, "_")}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = withDatabase(adminUrl, name);
  await runMigrations(url);
  let statementStats = false;
  if (options.statementStats) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("create extension if not exists pg_stat_statements");
      await client.query("select count(*) from pg_stat_statements");
      statementStats = true;
    } catch {
      // Not preloaded on this server: the caller says so and goes without.
    } finally {
      await client.end();
    }
  }
  return {
    url,
    statementStats,
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      await release?.();
      if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
    },
  };
}
