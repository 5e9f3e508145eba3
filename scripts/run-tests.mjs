#!/usr/bin/env node
// Runs the vitest suite and ends with the plain summary line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const outputFile = path.resolve(".test-results", `results-${process.pid}.json`);
mkdirSync(path.dirname(outputFile), { recursive: true });
rmSync(outputFile, { force: true });

const vitest = path.resolve("node_modules", "vitest", "vitest.mjs");
const run = spawnSync(
  process.execPath,
  [
    vitest,
    "run",
    "--reporter=default",
    "--reporter=json",
    // Each file's seconds on its worker; the slowest are printed at the end (test/support/fileDurations.ts).
    "--reporter=./test/support/fileDurations.ts",
    `--outputFile.json=${outputFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: "inherit" },
);

let passed = 0;
let failed = 0;
if (existsSync(outputFile)) {
  const report = JSON.parse(readFileSync(outputFile, "utf8"));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  // A file that failed outside its tests (it did not load, or a beforeAll/afterAll hook threw and
  // its tests were skipped) counts as one failure: vitest reports no failed test for it and, in
  // that case, can even exit 0.
  const brokenFiles = (report.testResults ?? []).filter(
    (file) => file.status === "failed" && !file.assertionResults.some((test) => test.status === "failed"),
  );
  failed += brokenFiles.length;
  if (report.success === false && failed === 0) failed = 1;
  rmSync(outputFile, { force: true });
} else {
  failed = 1;
}
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
