import path from "node:path";
import { fileURLToPath } from "node:url";

import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";

import { readJournal } from "./migrationJournal.ts";
import { recordMigrationWindows } from "./recordMigrationWindows.ts";

/**
 * Applies the committed migrations under a PostgreSQL advisory lock, on one dedicated connection,
 * so any number of processes may migrate at once (Drizzle's migrator takes no lock of its own).
 * Only `serenity migrate`, `serenity start`, and `serve`/`worker` when asked (or on an embedded
 * database they started) call it; every other command checks the schema and never changes it
 * (src/db/schemaState.ts, docs/decisions/0038).
 */

export const MIGRATIONS_FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** An arbitrary constant shared by every Serenity process: "serenity" as a 63-bit number. */
const MIGRATION_LOCK_KEY = 0x7365_7265_6e69;

export interface MigrateOptions {
  /** Another set of migrations (tests of a schema behind or ahead of this release). */
  folder?: string;
}

export async function runMigrations(url: string, options: MigrateOptions = {}): Promise<void> {
  const folder = options.folder ?? MIGRATIONS_FOLDER;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await client.query("set client_min_messages = warning");
      await migrate(drizzle(client), { migrationsFolder: folder, migrationsSchema: "drizzle" });
      // What an older release needs to know of these migrations when it meets them ahead of it.
      await recordMigrationWindows(client, readJournal(folder));
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}
