import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runCli } from "../../support/cli.ts";
import { createEmptyDatabase } from "../../support/database.ts";

let database: { url: string; destroy(): Promise<void> };
beforeAll(async () => {
  database = await createEmptyDatabase();
});
afterAll(() => database.destroy());

describe("serenity migrate", () => {
  it("six processes migrating one empty database at once all succeed", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => runCli(["migrate"], { DATABASE_URL: database.url }, 120_000)),
    );
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const applied = await client.query("select count(*)::int as n from drizzle.__drizzle_migrations");
      const tables = await client.query(
        "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
      );
      expect(applied.rows[0].n).toBeGreaterThanOrEqual(1);
      expect(tables.rows[0].n).toBeGreaterThanOrEqual(9);
    } finally {
      await client.end();
    }
  });
});
