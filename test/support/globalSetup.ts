import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import pg from "pg";
import type { TestProject } from "vitest/node";

import { acquireEmbeddedDatabase, type EmbeddedDatabase } from "../../src/db/embeddedServer.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { buildCliBundle } from "./cliBundle.ts";

/**
 * One PostgreSQL for the whole run: the machine's when TEST_DATABASE_URL is set, else an embedded
 * server in a temporary directory. A template database is migrated once; each test file clones it
 * (`createTestDatabase`), so files are isolated and run in parallel.
 *
 * It also bundles the CLI once (`cliBundle.ts`) for the `serenity` processes tests spawn, and
 * names it in SERENITY_TEST_BIN, which the test workers inherit (`test/support/cli.ts`).
 */

declare module "vitest" {
  export interface ProvidedContext {
    dbAdminUrl: string;
    dbTemplate: string;
    dbPrefix: string;
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export default async function setup(project: TestProject) {
  const runId = randomBytes(4).toString("hex");
  // One bundle per run: the second database project (vitest.config.ts) uses the one this process
  // built for the first. A nested run (test/e2e/privateCheckout: another vitest process, another
  // checkout) inherits the variable but builds its own, from its own sources.
  const built = process.env.SERENITY_TEST_BIN_BUILDER === String(process.pid);
  const bundleDir = built ? undefined : path.resolve(".test-results", `cli-${runId}`);
  if (bundleDir) {
    process.env.SERENITY_TEST_BIN = await buildCliBundle(process.cwd(), bundleDir);
    process.env.SERENITY_TEST_BIN_BUILDER = String(process.pid);
  }
  let embedded: EmbeddedDatabase | undefined;
  let tempDir: string | undefined;
  // The project's own server (the second database pass), else the run's, else an embedded one.
  let adminUrl = project.config.env?.TEST_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    tempDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-test-db-"));
    const logger = createLogger({ level: "silent" });
    const first = await acquireEmbeddedDatabase(tempDir, logger);
    const settings = new pg.Client({ connectionString: withDatabase(first.url, "postgres") });
    await settings.connect();
    // This run's own throw-away cluster: no crash to survive, so no flush to wait for (the suites
    // that check durability stop and start a cluster of their own). The jobs, locks, idempotency
    // and choke-point suites ran in 66 / 76 s with these against 86 / 84 s without, alternating
    // (ADR 0036). The second CI pass, on the machine's PostgreSQL, keeps its production settings.
    // Connections: two multi-process files side by side (six and four API processes, each with its
    // pool) held 74 of the default 100 here; 300 leaves them room. That one needs a restart.
    for (const setting of [
      "fsync = off",
      "synchronous_commit = off",
      "full_page_writes = off",
      "max_connections = 300",
    ])
      await settings.query(`alter system set ${setting}`);
    await settings.end();
    await first.release();
    embedded = await acquireEmbeddedDatabase(tempDir, logger);
    adminUrl = withDatabase(embedded.url, "postgres");
  }
  const template = `serenity_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  if (embedded) {
    const { rows } = await admin.query<{ max_connections: string }>("show max_connections");
    if (rows[0]?.max_connections !== "300") throw new Error("the test cluster did not take its settings");
  }
  await admin.query(`create database ${template}`);
  await runMigrations(withDatabase(adminUrl, template));

  project.provide("dbAdminUrl", adminUrl);
  project.provide("dbTemplate", template);
  project.provide("dbPrefix", `serenity_t_${runId}_`);

  return async () => {
    const leftovers = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like $1 or datname = $2",
      [`serenity_t_${runId}_%`, template],
    );
    for (const { datname } of leftovers.rows)
      await admin.query(`drop database if exists ${datname} with (force)`);
    await admin.end();
    await embedded?.release();
    if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
    if (bundleDir) await fs.rm(bundleDir, { recursive: true, force: true });
  };
}
