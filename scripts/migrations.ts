// Checks that the committed migrations agree with src/db/schema.ts, as openapi.ts does for the
// OpenAPI document: drizzle-kit's own consistency check of the migration folder, then a generate
// into a scratch copy of it, which must write nothing. A schema change without its migration fails.
// Then the expand/contract policy (docs/decisions/0032): every migration after the grandfathered
// ones must be additive, or say on its first line that it is a contract step and why.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

import { compatibilityOf } from "../src/db/migrationJournal.ts";
import { classifyMigration, GRANDFATHERED_MIGRATIONS } from "../src/db/migrationPolicy.ts";

const SCHEMA = "./src/db/schema.ts";
const MIGRATIONS = "src/db/migrations";

interface Run {
  ok: boolean;
  output: string;
}

function drizzleKit(args: string[]): Run {
  const result = spawnSync("npx", ["drizzle-kit", ...args, "--dialect", "postgresql"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  // drizzle-kit can print an error and still exit 0, so the output is read as well.
  const ok = result.status === 0 && !/\bError\b/.test(output);
  return { ok, output };
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" }).sort();
}

function fail(message: string, output: string): never {
  console.error(output.trim());
  console.error(message);
  process.exit(1);
}

const check = drizzleKit(["check", "--out", MIGRATIONS]);
if (!check.ok) fail(`${MIGRATIONS} is inconsistent (drizzle-kit check).`, check.output);

const scratch = mkdtempSync(join(tmpdir(), "serenity-migrations-"));
try {
  cpSync(MIGRATIONS, scratch, { recursive: true });
  const before = filesUnder(scratch);
  // drizzle-kit reads --out relative to the working directory.
  const generate = drizzleKit(["generate", "--schema", SCHEMA, "--out", relative(process.cwd(), scratch)]);
  if (!generate.ok) fail("drizzle-kit generate failed on a copy of the migrations.", generate.output);
  const added = filesUnder(scratch).filter((file) => !before.includes(file));
  if (added.length > 0) {
    fail(
      `${SCHEMA} has changes no committed migration carries (a generate would add ${added.join(", ")}): ` +
        "run `npm run db:generate` and commit the migration.",
      generate.output,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`${MIGRATIONS} is current with ${SCHEMA}`);

const journal = JSON.parse(readFileSync(join(MIGRATIONS, "meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};
const breaking: string[] = [];
for (const [index, { tag }] of journal.entries.entries()) {
  if (GRANDFATHERED_MIGRATIONS.includes(tag)) continue;
  const sql = readFileSync(join(MIGRATIONS, `${tag}.sql`), "utf8");
  const verdict = classifyMigration(sql);
  if (verdict.kind === "contract") {
    console.log(`${tag}: a contract step (${verdict.reason})`);
    // The oldest release it leaves working, which an older operator command checks (ADR 0038).
    const from = compatibilityOf(sql).compatibleCodeFrom;
    const earlier = journal.entries.slice(0, index).map((entry) => entry.tag);
    if (!from || !earlier.includes(from))
      breaking.push(
        `${tag}: a contract step needs a \`-- compatible-code-from: <tag>\` line naming an earlier migration ` +
          "(the oldest one whose release still runs on this schema)",
      );
  }
  if (verdict.kind === "breaking")
    breaking.push(...verdict.violations.map((violation) => `${tag}: ${violation}`));
}
if (breaking.length > 0) {
  fail(
    "A migration is not additive, so the previous release could not run on it during a rolling deploy " +
      "(docs/decisions/0032). Split it into an expand step now and a contract step in a later release, " +
      "marked on its first line `-- contract-step: <why no older process needs it any more>`.",
    breaking.join("\n"),
  );
}
console.log(`every migration after ${GRANDFATHERED_MIGRATIONS.at(-1)} is additive or a marked contract step`);
