import { describe, expect, it } from "vitest";

import type { JournalEntry } from "../../../src/db/migrationJournal.ts";
import { compatibilityOf, readJournal } from "../../../src/db/migrationJournal.ts";
import { compareSchema, type MigrationWindow, schemaRefusal } from "../../../src/db/schemaState.ts";

const entry = (tag: string, when: number): JournalEntry => ({
  tag,
  when,
  contract: false,
  compatibleCodeFrom: undefined,
});
const journal = [entry("0000_a", 100), entry("0001_b", 200)];
const windowOf = (tag: string, createdAt: number, compatibleCodeFrom?: string): MigrationWindow => ({
  tag,
  createdAt,
  contract: compatibleCodeFrom !== undefined,
  compatibleCodeFrom,
});

describe("compareSchema", () => {
  it("is current when the newest applied migration is this release's newest", () => {
    expect(compareSchema(journal, 200, [])).toEqual({ kind: "current" });
  });

  it("is behind by every migration newer than the newest applied, and by all of them on an empty database", () => {
    expect(compareSchema(journal, 100, [])).toEqual({ kind: "behind", pending: ["0001_b"] });
    expect(compareSchema(journal, undefined, [])).toEqual({ kind: "behind", pending: ["0000_a", "0001_b"] });
  });

  it("is ahead within the window over expand steps, and over a contract step whose compatible code this release knows", () => {
    expect(compareSchema(journal, 300, [windowOf("0002_c", 300)])).toEqual({
      kind: "ahead",
      ahead: ["0002_c"],
    });
    expect(compareSchema(journal, 400, [windowOf("0002_c", 300), windowOf("0003_d", 400, "0001_b")])).toEqual(
      {
        kind: "ahead",
        ahead: ["0002_c", "0003_d"],
      },
    );
  });

  it("is beyond the window over a contract step for newer code, one naming no code, or an unrecorded migration", () => {
    expect(
      compareSchema(journal, 400, [windowOf("0002_c", 300), windowOf("0003_d", 400, "0002_c")]),
    ).toMatchObject({
      kind: "beyond",
      step: "0003_d",
      needs: "0002_c",
    });
    const unnamed = { ...windowOf("0002_c", 300), contract: true };
    expect(compareSchema(journal, 300, [unnamed])).toMatchObject({ kind: "beyond", step: "0002_c" });
    expect(compareSchema(journal, 300, [])).toMatchObject({ kind: "beyond", needs: undefined });
  });
});

describe("schemaRefusal", () => {
  it("names `serenity migrate` for a schema behind, and --migrate only to the processes that take it", () => {
    const behind = { kind: "behind" as const, pending: ["0001_b"] };
    expect(schemaRefusal(behind, "server")).toBe(
      "the database schema is 1 migration behind this release (0001_b not applied): run `serenity migrate` first, or start with --migrate (SERENITY_MIGRATE_ON_START=true)",
    );
    expect(schemaRefusal(behind, "operator")).toContain(
      "this command never migrates; run `serenity migrate` first",
    );
    expect(schemaRefusal(behind, "operator")).not.toContain("--migrate");
  });

  it("accepts a current schema and one ahead within the window; refuses one beyond it in a line naming the step", () => {
    expect(schemaRefusal({ kind: "current" }, "operator")).toBeUndefined();
    expect(schemaRefusal({ kind: "ahead", ahead: ["0002_c"] }, "operator")).toBeUndefined();
    const line = schemaRefusal(
      { kind: "beyond", ahead: ["0002_c", "0003_d"], step: "0003_d", needs: "0002_c" },
      "server",
    );
    expect(line).toContain("2 migrations ahead of this release, beyond the rolling-upgrade window");
    expect(line).toContain("0003_d is a contract step for code from 0002_c on");
    expect(line).not.toContain("\n");
  });
});

describe("compatibilityOf", () => {
  it("reads the contract marker and the compatible code from the leading comment lines only", () => {
    expect(
      compatibilityOf("-- contract-step: nothing reads t\n-- compatible-code-from: 0007_x\nDROP TABLE t;"),
    ).toEqual({
      contract: true,
      compatibleCodeFrom: "0007_x",
    });
    expect(compatibilityOf("CREATE TABLE t (id int);\n-- compatible-code-from: 0007_x")).toEqual({
      contract: false,
      compatibleCodeFrom: undefined,
    });
  });
});

describe("the fold's contract step (0027, docs/decisions/0049) against the releases before it", () => {
  const committed = readJournal(new URL("../../../src/db/migrations", import.meta.url).pathname);
  const knownUpTo = (tag: string) => committed.slice(0, committed.findIndex((e) => e.tag === tag) + 1);
  const applied = committed.at(-1)!;
  const windows = committed.map((e) => ({ ...e, createdAt: e.when }));

  it("lets release 3 (which writes only the entries) run on the schema without the three tables", () => {
    expect(applied.tag >= "0027_fold_drop_left_behind_tables").toBe(true);
    expect(compareSchema(knownUpTo("0026_fold_write_entries_only"), applied.when, windows).kind).toBe(
      "ahead",
    );
  });

  it("refuses release 2, which still writes them, and every release before it", () => {
    for (const tag of [
      "0025_fold_read_entries",
      "0024_fold_into_resources_record",
      "0023_pool_samples_sampled_at",
    ]) {
      expect(compareSchema(knownUpTo(tag), applied.when, windows)).toMatchObject({
        kind: "beyond",
        step: "0027_fold_drop_left_behind_tables",
        needs: "0026_fold_write_entries_only",
      });
    }
  });
});
