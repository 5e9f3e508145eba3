import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runMigrations } from "../../../src/db/migrate.ts";
import { runCli } from "../../support/cli.ts";
import { createEmptyDatabase } from "../../support/database.ts";

/** `serenity admin set`: the operator switch of spec/generation.md §2, written where every process reads it. */
let database: { url: string; destroy(): Promise<void> };
beforeAll(async () => {
  database = await createEmptyDatabase();
  // Operator commands never migrate (docs/decisions/0038): the deploy's `serenity migrate` runs first.
  await runMigrations(database.url);
});
afterAll(() => database.destroy());

describe("serenity admin set", () => {
  it("sets generation.consumerReady in the settings table; refuses unknown keys and bad values", async () => {
    const env = {
      DATABASE_URL: database.url,
      SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString("base64"),
    };
    const set = await runCli(["admin", "set", "generation.consumerReady", "false"], env, 120_000);
    expect(set, set.stderr).toMatchObject({ code: 0 });
    expect(set.stdout).toContain("generation.consumerReady = false");

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const row = await client.query("select value from settings where key = 'generation.consumerReady'");
      expect(row.rows[0].value).toBe(false);
    } finally {
      await client.end();
    }

    const unknown = await runCli(["admin", "set", "generation.nope", "true"], env, 120_000);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown setting");
    const bad = await runCli(["admin", "set", "generation.consumerReady", "maybe"], env, 120_000);
    expect(bad.code).toBe(2);
  });
});
