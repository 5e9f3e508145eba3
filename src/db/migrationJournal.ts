import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The committed migrations as this release knows them: drizzle-kit's journal (`meta/_journal.json`,
 * each entry's `when` is what drizzle stores as `created_at` of an applied migration) and, for a
 * contract step, the oldest code it leaves working (docs/decisions/0038).
 */
export interface JournalEntry {
  tag: string;
  /** drizzle's folder millis: `created_at` in `drizzle.__drizzle_migrations` once applied. */
  when: number;
  /**
   * Set on a contract step (`-- contract-step: …` on its first line): the tag named by its
   * `-- compatible-code-from: <tag>` line, the oldest migration whose release still runs on the
   * schema this step leaves. Unset on an expand step, which every older release survives.
   */
  compatibleCodeFrom: string | undefined;
  /** True when the first line marks a contract step. */
  contract: boolean;
}

/** `-- compatible-code-from: 0020_title_key`, among a contract step's leading comment lines. */
const COMPATIBLE_CODE_FROM = /^--\s*compatible-code-from:\s*(\S+)\s*$/;
const CONTRACT_FIRST_LINE = /^--\s*contract-step:/;

/** What a migration's leading comment lines say about the code it leaves working. */
export function compatibilityOf(sql: string): { contract: boolean; compatibleCodeFrom: string | undefined } {
  const lines = sql.split("\n").map((line) => line.trim());
  const contract = CONTRACT_FIRST_LINE.test(lines[0] ?? "");
  let compatibleCodeFrom: string | undefined;
  for (const line of lines) {
    if (!line.startsWith("--")) break;
    compatibleCodeFrom ??= COMPATIBLE_CODE_FROM.exec(line)?.[1];
  }
  return { contract, compatibleCodeFrom };
}

export function readJournal(folder: string): JournalEntry[] {
  const journal = JSON.parse(readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.map(({ tag, when }) => ({
    tag,
    when,
    ...compatibilityOf(readFileSync(path.join(folder, `${tag}.sql`), "utf8")),
  }));
}
