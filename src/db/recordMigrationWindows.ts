import type pg from "pg";

import type { JournalEntry } from "./migrationJournal.ts";

/**
 * Beside drizzle's own table, one row per migration this release applied or knew: its tag, its
 * `created_at`, and for a contract step the oldest code it leaves working. An older release reads
 * it to tell a schema ahead of it within the rolling-upgrade window from one beyond it
 * (src/db/schemaState.ts). Outside src/db/schema.ts on purpose: it describes the migrations, not
 * the data, and drizzle-kit must never generate a migration for it.
 */
export async function recordMigrationWindows(
  client: pg.ClientBase,
  entries: readonly JournalEntry[],
): Promise<void> {
  await client.query(
    `create table if not exists drizzle.serenity_migration_windows (
       tag text primary key,
       created_at bigint not null,
       contract boolean not null,
       compatible_code_from text
     )`,
  );
  if (entries.length === 0) return;
  await client.query(
    `insert into drizzle.serenity_migration_windows (tag, created_at, contract, compatible_code_from)
     select * from unnest($1::text[], $2::bigint[], $3::boolean[], $4::text[])
     on conflict (tag) do update set created_at = excluded.created_at, contract = excluded.contract,
       compatible_code_from = excluded.compatible_code_from`,
    [
      entries.map((entry) => entry.tag),
      entries.map((entry) => entry.when),
      entries.map((entry) => entry.contract),
      entries.map((entry) => entry.compatibleCodeFrom ?? null),
    ],
  );
}
