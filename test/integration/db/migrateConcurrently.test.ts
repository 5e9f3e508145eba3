import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runMigrations } from "../../../src/db/migrate.ts";
import { createEmptyDatabase } from "../../support/database.ts";

let databases: { url: string; destroy(): Promise<void> }[] = [];
beforeAll(async () => {
  databases = await Promise.all([createEmptyDatabase(), createEmptyDatabase()]);
});
afterAll(() => Promise.all(databases.map((database) => database.destroy())));

describe("runMigrations", () => {
  it("twelve concurrent migrators on one empty database all succeed and apply each migration once", async () => {
    const url = databases[0]!.url;
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => runMigrations(url)));
    expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query("select hash from drizzle.__drizzle_migrations");
      expect(new Set(rows.rows.map((row) => row.hash)).size).toBe(rows.rowCount);
    } finally {
      await client.end();
    }
  });

  it("is idempotent: a second run on a migrated database changes nothing", async () => {
    const url = databases[1]!.url;
    await runMigrations(url);
    await runMigrations(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query("select count(*)::int as n from drizzle.__drizzle_migrations");
      expect(rows.rows[0].n).toBeGreaterThanOrEqual(1);
    } finally {
      await client.end();
    }
  });
});
