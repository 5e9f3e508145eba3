import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runCli } from "../../support/cli.ts";
import { createEmptyDatabase } from "../../support/database.ts";
import { migrateAs, newestCommittedTag } from "../../support/schemaVariants.ts";
import { spawnWorker } from "../../support/workerProcess.ts";

/**
 * Migrations only when asked (docs/decisions/0038): against a database one migration behind this
 * checkout, one ahead within the rolling-upgrade window and one ahead beyond it, every command that
 * opens the database either runs unchanged or refuses in one line — and none of them migrates.
 */
type Database = { url: string; destroy(): Promise<void> };
let behind: Database;
let ahead: Database;
let beyond: Database;

const EXPAND = { tag: "0098_newer_expand", sql: 'CREATE TABLE "newer_release_table" ("id" integer);' };
const CONTRACT = {
  tag: "0099_newer_contract",
  sql: `-- contract-step: no release since 0098 reads newer_release_table\n-- compatible-code-from: ${EXPAND.tag}\nDROP TABLE "newer_release_table";`,
};

beforeAll(async () => {
  [behind, ahead, beyond] = await Promise.all([
    createEmptyDatabase(),
    createEmptyDatabase(),
    createEmptyDatabase(),
  ]);
  await Promise.all([
    migrateAs(behind.url, { kind: "behind" }),
    migrateAs(ahead.url, { kind: "ahead", migrations: [EXPAND] }),
    migrateAs(beyond.url, { kind: "ahead", migrations: [EXPAND, CONTRACT] }),
  ]);
}, 120_000);
afterAll(() => Promise.all([behind, ahead, beyond].map((database) => database?.destroy())));

const dataDir = mkdtempSync(path.join(tmpdir(), "serenity-schema-gate-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ENV = {
  SERENITY_DATA_DIR: dataDir,
  SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString("base64"),
  SERENITY_AUTH_SECRET: "schema-gate-test-secret-0123456789",
  SERENITY_UPSTREAM_TOKEN: "operator-token",
  SERENITY_WORKER_PORT: "0",
  PORT: "0",
};

const OPERATOR_COMMANDS: Record<string, string[]> = {
  audit: ["audit", "--format", "json"],
  "admin set": ["admin", "set", "generation.consumerReady", "true"],
  "credentials reseal --dry-run": ["credentials", "reseal", "--dry-run", "--json"],
  reconcile: ["reconcile", "--delete", "no-such-upstream-id"],
  "sweep --dry-run": ["sweep", "--dry-run", "--json", "--fresh"],
};
const SERVER_COMMANDS: Record<string, string[]> = { serve: ["serve"], worker: ["worker"] };

async function appliedCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("select count(*)::int as n from drizzle.__drizzle_migrations")).rows[0].n;
  } finally {
    await client.end();
  }
}

function runEach(commands: Record<string, string[]>, url: string) {
  return Promise.all(
    Object.entries(commands).map(async ([name, args]) => ({
      name,
      result: await runCli(args, { ...ENV, DATABASE_URL: url }, 120_000),
    })),
  );
}

describe("a schema behind this release", () => {
  it("every operator command refuses in one line naming `serenity migrate`, serve and worker name --migrate too; nothing migrates", async () => {
    const before = await appliedCount(behind.url);
    const pending = newestCommittedTag();
    for (const { name, result } of await runEach({ ...OPERATOR_COMMANDS, ...SERVER_COMMANDS }, behind.url)) {
      expect(result.code, `${name}: ${result.stderr}`).toBe(1);
      const line = `serenity: the database schema is 1 migration behind this release (${pending} not applied): `;
      const fix =
        name in SERVER_COMMANDS
          ? "run `serenity migrate` first, or start with --migrate (SERENITY_MIGRATE_ON_START=true)"
          : "this command never migrates; run `serenity migrate` first";
      expect(result.stderr, name).toBe(`${line}${fix}\n`);
    }
    expect(await appliedCount(behind.url)).toBe(before);
  }, 300_000);

  it("`worker --migrate` applies the pending migration and starts", async () => {
    const before = await appliedCount(behind.url);
    const worker = spawnWorker({ ...ENV, DATABASE_URL: behind.url }, { args: ["--migrate"] });
    await worker.started;
    worker.child.kill("SIGTERM");
    await worker.exited;
    expect(await appliedCount(behind.url)).toBe(before + 1);
  });
});

describe("a schema ahead of this release", () => {
  it("within the rolling-upgrade window (an expand step): operator commands run as usual", async () => {
    for (const { name, result } of await runEach(OPERATOR_COMMANDS, ahead.url)) {
      expect(result.stderr, name).not.toContain("database schema");
      if (name !== "reconcile") expect(result.code, `${name}: ${result.stderr}`).toBe(0);
    }
  }, 300_000);

  it("beyond the window (a contract step for newer code): every command refuses in one line naming the step", async () => {
    const before = await appliedCount(beyond.url);
    for (const { name, result } of await runEach({ ...OPERATOR_COMMANDS, ...SERVER_COMMANDS }, beyond.url)) {
      expect(result.code, `${name}: ${result.stderr}`).toBe(1);
      expect(result.stderr, name).toBe(
        `serenity: the database schema is 2 migrations ahead of this release, beyond the rolling-upgrade window ` +
          `(${CONTRACT.tag} is a contract step for code from ${EXPAND.tag} on; docs/decisions/0032): ` +
          "run this from the release that migrated it\n",
      );
    }
    expect(await appliedCount(beyond.url)).toBe(before);
  }, 300_000);
});
