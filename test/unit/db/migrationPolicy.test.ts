import { readdirSync, readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { classifyMigration, GRANDFATHERED_MIGRATIONS } from "../../../src/db/migrationPolicy.ts";

const BREAKPOINT = "--> statement-breakpoint\n";

function verdictOf(...statements: string[]) {
  return classifyMigration(statements.join(BREAKPOINT));
}

describe("the expand/contract classifier of migrations", () => {
  it.each([
    [
      "a new table with a NOT NULL column",
      `CREATE TABLE "things" ("id" uuid PRIMARY KEY NOT NULL, "name" text NOT NULL);`,
    ],
    ["a nullable column", `ALTER TABLE "brands" ADD COLUMN "note" text;`],
    [
      "a NOT NULL column with a default",
      `ALTER TABLE "markets" ADD COLUMN "status" text DEFAULT 'ready' NOT NULL;`,
    ],
    ["an index", `CREATE INDEX "brands_note_idx" ON "brands" USING btree ("note");`],
    ["relaxing a NOT NULL", `ALTER TABLE "markets" ALTER COLUMN "project_id" DROP NOT NULL;`],
    ["a default on an existing column", `ALTER TABLE "brands" ALTER COLUMN "mode" SET DEFAULT 'flat';`],
    ["a backfill", `UPDATE "brands" SET "note" = '' WHERE "note" IS NULL;`],
    ["an enum value", `ALTER TYPE "job_status" ADD VALUE 'PAUSED';`],
    [
      "a foreign key on a new column",
      `ALTER TABLE "brands" ADD COLUMN "parent_id" uuid;`,
      `ALTER TABLE "brands" ADD CONSTRAINT "brands_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "brands"("id");`,
    ],
    [
      "a unique constraint on a column added in the same migration",
      `ALTER TABLE "brands" ADD COLUMN "name_key" text;`,
      `ALTER TABLE "brands" ADD CONSTRAINT "brands_org_name_key_unique" UNIQUE("org_id","name_key");`,
    ],
    [
      "anything on a table created in the same migration",
      `CREATE TABLE "scratch" ("id" uuid NOT NULL, "v" text);`,
      `ALTER TABLE "scratch" ALTER COLUMN "v" SET NOT NULL;`,
      `ALTER TABLE "scratch" RENAME COLUMN "v" TO "value";`,
      `CREATE UNIQUE INDEX "scratch_value" ON "scratch" ("value");`,
    ],
    [
      "SET NOT NULL on an existing column given a default in the same migration",
      `ALTER TABLE "brands" ALTER COLUMN "mode" SET DEFAULT 'flat';`,
      `UPDATE "brands" SET "mode" = 'flat' WHERE "mode" IS NULL;`,
      `ALTER TABLE "brands" ALTER COLUMN "mode" SET NOT NULL;`,
    ],
    [
      "keywords inside comments and strings",
      `-- we never DROP TABLE here\nUPDATE "settings" SET "value" = 'DROP TABLE x; RENAME';`,
    ],
  ])("accepts %s as additive", (_name, ...statements) => {
    expect(verdictOf(...statements)).toEqual({ kind: "additive" });
  });

  it.each([
    ["dropping a table", `DROP TABLE "brands";`, /drops/],
    ["dropping a column", `ALTER TABLE "brands" DROP COLUMN "domain";`, /drops from brands/],
    ["dropping a constraint", `ALTER TABLE "brands" DROP CONSTRAINT "brands_pk";`, /drops from brands/],
    ["dropping an index", `DROP INDEX "brands_org_idx";`, /drops/],
    ["renaming a column", `ALTER TABLE "brands" RENAME COLUMN "domain" TO "host";`, /renames in brands/],
    ["renaming a table", `ALTER TABLE "brands" RENAME TO "labels";`, /renames in brands/],
    [
      "changing a type",
      `ALTER TABLE "markets" ALTER COLUMN "geo_target_id" SET DATA TYPE bigint;`,
      /changes the type of markets.geo_target_id/,
    ],
    [
      "changing a type (short form)",
      `ALTER TABLE "markets" ALTER COLUMN "geo_target_id" TYPE bigint;`,
      /changes the type/,
    ],
    [
      "SET NOT NULL on an existing column",
      `ALTER TABLE "brands" ALTER COLUMN "domain" SET NOT NULL;`,
      /sets brands.domain NOT NULL without a default/,
    ],
    [
      "a NOT NULL column without a default",
      `ALTER TABLE "brands" ADD COLUMN "tier" text NOT NULL;`,
      /adds brands.tier NOT NULL without a default/,
    ],
    [
      "dropping a default",
      `ALTER TABLE "markets" ALTER COLUMN "status" DROP DEFAULT;`,
      /drops the default of markets.status/,
    ],
    [
      "a unique constraint on existing columns",
      `ALTER TABLE "brands" ADD CONSTRAINT "u" UNIQUE("org_id","domain");`,
      /UNIQUE constraint on existing data of brands/,
    ],
    [
      "a check on existing data",
      `ALTER TABLE "markets" ADD CONSTRAINT "c" CHECK ("geo_target_id" > 2000);`,
      /CHECK constraint/,
    ],
    [
      "a unique index on existing columns",
      `CREATE UNIQUE INDEX "brands_domain" ON "brands" USING btree ("org_id","domain");`,
      /unique index on existing data of brands/,
    ],
    ["deleting rows", `DELETE FROM "jobs" WHERE "status" = 'FAILED';`, /deletes rows/],
    ["emptying a table", `TRUNCATE "jobs";`, /empties a table/],
    [
      "renaming an enum value",
      `ALTER TYPE "job_status" RENAME VALUE 'FAILED' TO 'ERRORED';`,
      /renames|changes a type/,
    ],
  ])("refuses %s", (_name, statement, reason) => {
    const verdict = verdictOf(`ALTER TABLE "brands" ADD COLUMN "note" text;`, statement);
    expect(verdict.kind).toBe("breaking");
    expect(verdict.kind === "breaking" ? verdict.violations.join("\n") : "").toMatch(reason);
  });

  it("finds every breaking action of a multi-action ALTER TABLE", () => {
    const verdict = classifyMigration(
      `ALTER TABLE "brands" DROP COLUMN "a", ADD COLUMN "b" text, RENAME COLUMN "c" TO "d";`,
    );
    expect(verdict).toMatchObject({ kind: "breaking" });
    expect(verdict.kind === "breaking" && verdict.violations).toHaveLength(2);
  });

  it("accepts a marked contract step with its reason, and only on the first line", () => {
    const drop = `ALTER TABLE "brands" DROP COLUMN "legacy_title";`;
    expect(classifyMigration(`-- contract-step: no release since 1.4 reads legacy_title\n${drop}`)).toEqual({
      kind: "contract",
      reason: "no release since 1.4 reads legacy_title",
    });
    expect(classifyMigration(`${drop}\n-- contract-step: too late`).kind).toBe("breaking");
    expect(classifyMigration(`-- contract-step:\n${drop}`).kind).toBe("breaking");
  });

  it("grandfathers exactly the migrations written before the policy, all of them present", () => {
    expect(GRANDFATHERED_MIGRATIONS).toHaveLength(14);
    expect(GRANDFATHERED_MIGRATIONS.at(-1)).toBe("0013_orphan_quarantine");
    const files = new Set(readdirSync("src/db/migrations").filter((file) => file.endsWith(".sql")));
    for (const tag of GRANDFATHERED_MIGRATIONS) expect(files.has(`${tag}.sql`), tag).toBe(true);
  });

  it("classifies the grandfathered migrations: all expand-only but 0005, a unique constraint on existing orgs", () => {
    // The classifier on real drizzle output. 0005 is why the policy exists: it could fail on
    // existing rows, and refuses an older writer's duplicate parent workspace.
    const breaking = GRANDFATHERED_MIGRATIONS.filter(
      (tag) => classifyMigration(readFileSync(`src/db/migrations/${tag}.sql`, "utf8")).kind !== "additive",
    );
    expect(breaking).toEqual(["0005_org_parent_workspace_unique"]);
  });
});
