import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { MIGRATIONS_FOLDER, runMigrations } from "../../../src/db/migrate.ts";
import { createEmptyDatabase } from "../../support/database.ts";

/**
 * The migration that makes brand names unique per org runs on a database that already holds
 * brands sharing a name (created before the rule): it must not fail, rename or drop any of them.
 */
const BEFORE = "0012_idempotency_keys";
let database: { url: string; destroy(): Promise<void> };
let client: pg.Client;
let oldFolder: string;

beforeAll(async () => {
  database = await createEmptyDatabase();
  oldFolder = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-migrations-"));
  const journal = JSON.parse(await fs.readFile(path.join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8"));
  const cut = journal.entries.findIndex((entry: { tag: string }) => entry.tag === BEFORE);
  expect(cut).toBeGreaterThan(0);
  const kept = journal.entries.slice(0, cut);
  await fs.mkdir(path.join(oldFolder, "meta"));
  await fs.writeFile(
    path.join(oldFolder, "meta/_journal.json"),
    JSON.stringify({ ...journal, entries: kept }),
  );
  for (const entry of kept) {
    await fs.copyFile(
      path.join(MIGRATIONS_FOLDER, `${entry.tag}.sql`),
      path.join(oldFolder, `${entry.tag}.sql`),
    );
  }
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.destroy();
  await fs.rm(oldFolder, { recursive: true, force: true });
});

describe("brand names unique per org: the migration on old data", () => {
  it("keeps every existing brand, keys the oldest of each name, and refuses new twins", async () => {
    await migrate(drizzle(client), { migrationsFolder: oldFolder, migrationsSchema: "drizzle" });
    const org = (
      await client.query<{ id: string }>(
        "insert into orgs (name, created_at, updated_at) values ('Old', now(), now()) returning id",
      )
    ).rows[0]!.id;
    const insert = (name: string, at: string) =>
      client.query(
        "insert into brands (org_id, name, status, created_at, updated_at) values ($1, $2, 'pending', $3, $3)",
        [org, name, at],
      );
    await insert("Twin", "2026-01-01T00:00:00Z");
    await insert("twin", "2026-01-02T00:00:00Z");
    await insert("TWIN", "2026-01-03T00:00:00Z");
    await insert("Solo", "2026-01-01T00:00:00Z");

    await runMigrations(database.url);

    const rows = await client.query<{ name: string; name_key: string | null }>(
      "select name, name_key from brands order by created_at, name",
    );
    expect(rows.rows).toEqual([
      { name: "Solo", name_key: "solo" },
      { name: "Twin", name_key: "twin" },
      { name: "twin", name_key: null },
      { name: "TWIN", name_key: null },
    ]);
    await expect(
      client.query(
        "insert into brands (org_id, name, name_key, status, created_at, updated_at) values ($1, 'tWiN', 'twin', 'pending', now(), now())",
        [org],
      ),
    ).rejects.toThrow(/brands_org_name_key_unique/);
  });
});
