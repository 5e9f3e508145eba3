import type { JournalEntry } from "./migrationJournal.ts";

/**
 * Where a database's schema stands against this release's migrations (docs/decisions/0038):
 * current; behind (migrations this release needs are not applied); ahead within the rolling-upgrade
 * window of docs/decisions/0032 (every migration this release does not know is an expand step, or
 * a contract step whose `compatible-code-from` this release knows); or ahead beyond it.
 */
export type SchemaState =
  | { kind: "current" }
  | { kind: "behind"; pending: string[] }
  | { kind: "ahead"; ahead: string[] }
  | { kind: "beyond"; ahead: string[]; step: string; needs: string | undefined };

/** A row of drizzle.serenity_migration_windows (src/db/recordMigrationWindows.ts). */
export interface MigrationWindow {
  tag: string;
  createdAt: number;
  contract: boolean;
  compatibleCodeFrom: string | undefined;
}

/**
 * drizzle applies every migration newer than the newest it has applied, so "applied" is that
 * newest `created_at` (undefined: none at all).
 */
export function compareSchema(
  journal: readonly JournalEntry[],
  newestApplied: number | undefined,
  windows: readonly MigrationWindow[],
): SchemaState {
  const newestKnown = journal.at(-1)?.when ?? 0;
  if (newestApplied === undefined || newestApplied < newestKnown) {
    const pending = journal.filter((entry) => newestApplied === undefined || entry.when > newestApplied);
    return { kind: "behind", pending: pending.map((entry) => entry.tag) };
  }
  if (newestApplied === newestKnown) return { kind: "current" };
  const known = new Set(journal.map((entry) => entry.tag));
  const ahead = windows
    .filter((window) => window.createdAt > newestKnown)
    .sort((a, b) => a.createdAt - b.createdAt);
  const tags = ahead.map((window) => window.tag);
  // Applied, newer than anything this release knows, and no record of what it leaves working.
  if (!ahead.some((window) => window.createdAt === newestApplied)) {
    return { kind: "beyond", ahead: tags, step: "an unrecorded migration", needs: undefined };
  }
  for (const window of ahead) {
    if (!window.contract) continue;
    const from = window.compatibleCodeFrom;
    if (from === undefined || !known.has(from)) {
      return { kind: "beyond", ahead: tags, step: window.tag, needs: from };
    }
  }
  return { kind: "ahead", ahead: tags };
}

/** Who is asking: a process that may migrate when told to, or an operator command that never does. */
export type SchemaReader = "server" | "operator";

function count(n: number): string {
  return n === 1 ? "1 migration" : `${n} migrations`;
}

/** The one line a process refusing this schema prints, or undefined when it may run on it. */
export function schemaRefusal(state: SchemaState, reader: SchemaReader): string | undefined {
  if (state.kind === "current" || state.kind === "ahead") return undefined;
  if (state.kind === "behind") {
    const listed =
      state.pending.length <= 3 ? state.pending.join(", ") : `${state.pending[0]} … ${state.pending.at(-1)}`;
    const fix =
      reader === "server"
        ? "run `serenity migrate` first, or start with --migrate (SERENITY_MIGRATE_ON_START=true)"
        : "this command never migrates; run `serenity migrate` first";
    return `the database schema is ${count(state.pending.length)} behind this release (${listed} not applied): ${fix}`;
  }
  const why = state.needs
    ? `${state.step} is a contract step for code from ${state.needs} on`
    : state.step === "an unrecorded migration"
      ? "an applied migration has no compatibility record"
      : `${state.step} is a contract step that names no compatible code`;
  return (
    `the database schema is ${count(state.ahead.length)} ahead of this release, beyond the rolling-upgrade ` +
    `window (${why}; docs/decisions/0032): run this from the release that migrated it`
  );
}
