#!/usr/bin/env node
// Rewrites test/durations.json, the order the test sequencer hands files out (slowest first,
// test/support/slowestFirst.ts), from a run's measured seconds:
//   TEST_DURATIONS_FILE=/tmp/durations.json npm test && node scripts/test-durations.mjs /tmp/durations.json
// Keeps the files that held a worker 3 s or more (a file run by two projects: its longer time).
import { readFileSync, writeFileSync } from "node:fs";

const measured = JSON.parse(readFileSync(process.argv[2], "utf8"));
const seconds = {};
for (const [key, value] of Object.entries(measured)) {
  const file = key.slice(key.indexOf(":") + 1);
  seconds[file] = Math.max(seconds[file] ?? 0, Math.round(value));
}
const kept = Object.entries(seconds)
  .filter(([, value]) => value >= 3)
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
writeFileSync("test/durations.json", `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
console.log(`test/durations.json: ${kept.length} files`);
