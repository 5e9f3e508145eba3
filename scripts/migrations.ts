// Checks that the committed migrations agree with src/db/schema.ts, as openapi.ts does for the
// OpenAPI document: drizzle-kit's own consistency check of the migration folder, then a generate
// into a scratch copy of it, which must write nothing. A schema change without its migration fails.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

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
