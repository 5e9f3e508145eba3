import { readFileSync } from "node:fs";
import path from "node:path";

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { MIGRATIONS_FOLDER, runMigrations } from "../../../src/db/migrate.ts";
import { createEmptyDatabase } from "../../support/database.ts";

let databases: { url: string; destroy(): Promise<void> }[] = [];
beforeAll(async () => {
  databases = await Promise.all([createEmptyDatabase(), createEmptyDatabase()]);
});
afterAll(() => Promise.all(databases.map((database) => database.destroy())));

/** How many migrations are committed (Drizzle's journal), so "applied once each" has a number. */
const committed = (
  JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  }
).entries.length;

/**
 * The schema as the catalog describes it, outside PostgreSQL's own schemas: every column (type,
 * nullability, default), constraint, index, sequence, view and function, one sorted line each.
 * Two equal lists mean no object was created, dropped or altered in between.
 */
const SCHEMA_QUERY = `
  select 'column ' || table_schema || '.' || table_name || '.' || column_name || ' ' || data_type
         || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
    from information_schema.columns
   where table_schema not in ('pg_catalog', 'information_schema')
  union all
  select 'constraint ' || n.nspname || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid)
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
   where n.nspname not in ('pg_catalog', 'information_schema')
  union all
  select 'index ' || schemaname || '.' || indexname || ' ' || indexdef
    from pg_indexes where schemaname not in ('pg_catalog', 'information_schema')
  union all
  select 'relation ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
  union all
  select 'function ' || n.nspname || '.' || p.proname || ' ' || md5(p.prosrc)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname not in ('pg_catalog', 'information_schema')
  order by 1`;

async function inspect(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const schema = (await client.query<{ line: string }>(SCHEMA_QUERY)).rows.map((row) => row.line);
    const migrations = (
      await client.query<{ id: number; hash: string; created_at: string }>(
        "select id, hash, created_at::text from drizzle.__drizzle_migrations order by id",
      )
    ).rows;
    return { schema, migrations };
  } finally {
    await client.end();
  }
}

describe("runMigrations", () => {
  it("twelve concurrent migrators on one empty database all succeed and apply each migration once", async () => {
    const url = databases[0]!.url;
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => runMigrations(url)));
    expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    const { migrations } = await inspect(url);
    expect(committed).toBeGreaterThan(0);
    expect(migrations).toHaveLength(committed);
    expect(new Set(migrations.map((row) => row.hash)).size).toBe(committed);
  });

  it("is idempotent: a second run on a migrated database changes nothing", async () => {
    const url = databases[1]!.url;
    await runMigrations(url);
    const before = await inspect(url);
    expect(before.migrations).toHaveLength(committed);
    // A migrated database has Serenity's tables (the comparison below is of something).
    expect(before.schema.some((line) => line.startsWith("relation public.brands "))).toBe(true);
    await runMigrations(url);
    const after = await inspect(url);
    expect(after.schema).toEqual(before.schema);
    expect(after.migrations).toEqual(before.migrations);
  });
});
