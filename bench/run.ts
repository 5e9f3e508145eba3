/**
 * `npm run bench [-- name …]`: runs the named benchmarks (file names without `.ts`), or all of
 * them, one after another, each in its own process so one's memory and timers cannot skew the
 * next. Each script prints its own side-by-side ratios; see bench/README.md.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

const here = import.meta.dirname;
/** Modules other benches import, not benchmarks themselves. */
const HELPERS = new Set(["run", "allocation-support"]);
const available = readdirSync(here)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.slice(0, -3))
  .filter((name) => !HELPERS.has(name))
  .sort();

const asked = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const unknown = asked.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(1);
}

let failed = 0;
for (const name of asked.length > 0 ? asked : available) {
  console.log(`\n== ${name}`);
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(here, `${name}.ts`)], {
    stdio: "inherit",
  });
  if (run.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
