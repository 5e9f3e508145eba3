import type pg from "pg";

import type { JournalEntry } from "./migrationJournal.ts";
import { compareSchema, type MigrationWindow, type SchemaState } from "./schemaState.ts";

/** Reads where the database's schema stands against `journal`; changes nothing. */
export async function readSchemaState(
  client: pg.Pool | pg.ClientBase,
  journal: readonly JournalEntry[],
): Promise<SchemaState> {
  const tables = await client.query<{ applied: string | null; windows: string | null }>(
    `select to_regclass('drizzle.__drizzle_migrations')::text as applied,
            to_regclass('drizzle.serenity_migration_windows')::text as windows`,
  );
  const { applied, windows } = tables.rows[0] ?? { applied: null, windows: null };
  if (!applied) return compareSchema(journal, undefined, []);
  const newest = await client.query<{ created_at: string | null }>(
    "select max(created_at)::text as created_at from drizzle.__drizzle_migrations",
  );
  const newestApplied = newest.rows[0]?.created_at;
  let recorded: MigrationWindow[] = [];
  if (windows) {
    const rows = await client.query<{
      tag: string;
      created_at: string;
      contract: boolean;
      compatible_code_from: string | null;
    }>(
      "select tag, created_at::text, contract, compatible_code_from from drizzle.serenity_migration_windows",
    );
    recorded = rows.rows.map((row) => ({
      tag: row.tag,
      createdAt: Number(row.created_at),
      contract: row.contract,
      compatibleCodeFrom: row.compatible_code_from ?? undefined,
    }));
  }
  return compareSchema(journal, newestApplied == null ? undefined : Number(newestApplied), recorded);
}
