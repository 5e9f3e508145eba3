import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { MIGRATIONS_FOLDER, runMigrations } from "../../src/db/migrate.ts";

/**
 * A database migrated by another release: one migration behind this checkout (the newest one not
 * applied), or ahead of it by migrations this checkout has never seen — as an older or a newer
 * release's `serenity migrate` leaves it, compatibility records included (src/db/migrate.ts).
 */
export type SchemaVariant =
  { kind: "behind" } | { kind: "ahead"; migrations: { tag: string; sql: string }[] };

interface Journal {
  entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[];
}

export async function migrateAs(url: string, variant: SchemaVariant): Promise<void> {
  const folder = mkdtempSync(path.join(tmpdir(), "serenity-schema-variant-"));
  try {
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalFile = path.join(folder, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalFile, "utf8")) as Journal;
    if (variant.kind === "behind") journal.entries.pop();
    else {
      for (const migration of variant.migrations) {
        const last = journal.entries.at(-1)!;
        journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1_000, tag: migration.tag });
        writeFileSync(path.join(folder, `${migration.tag}.sql`), migration.sql);
      }
    }
    writeFileSync(journalFile, JSON.stringify(journal, null, 2));
    await runMigrations(url, { folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The tag of this checkout's newest migration. */
export function newestCommittedTag(): string {
  const journal = JSON.parse(
    readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8"),
  ) as Journal;
  return journal.entries.at(-1)!.tag;
}
