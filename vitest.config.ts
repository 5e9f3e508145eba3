import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

import SlowestFirst from "./test/support/slowestFirst.ts";

/**
 * The suites that exercise PostgreSQL's semantics (locks, leases, transactions, the job queue,
 * allocation's conservation, idempotency, migrations), run a second time on another server and
 * version when TEST_SECOND_DATABASE_URL names one (.ci/run: the machine's PostgreSQL 15). Suites
 * whose subject is the CLI, the simulator, the gateway, the HTTP surface or generation touch the
 * database only in passing; so do the embedded server's own tests. A folder (ending in /) or a
 * file name's start; one that matches no file fails the run, so a rename cannot drop a suite.
 */
const SECOND_DATABASE_SUITES = [
  "test/integration/allocation/",
  "test/integration/poolView/",
  "test/integration/budget/",
  "test/integration/brands/",
  "test/integration/credentials/",
  "test/integration/idempotency/",
  "test/integration/jobs/",
  "test/integration/locks/",
  "test/integration/markets/",
  "test/integration/provisioning/",
  "test/integration/db/brandNameMigration",
  "test/integration/db/leaseClock",
  "test/integration/db/liveCatalogueIdsMigration",
  "test/integration/db/migrateConcurrently",
  "test/integration/db/transactionScope",
  "test/integration/api/idempotentCreates",
  "test/integration/operations/upstreamReconciler",
  "test/integration/operations/restoreReattach",
  "test/property/allocation/",
];

/** Whether a folder (ending in /) or a file name's start names at least one test file. */
function namesATest(suite: string): boolean {
  const folder = suite.endsWith("/") ? suite : path.dirname(suite);
  if (!existsSync(folder)) return false;
  const files = readdirSync(folder, { recursive: suite.endsWith("/") }).map(String);
  return files.some(
    (file) => file.endsWith(".test.ts") && (suite.endsWith("/") || file.startsWith(path.basename(suite))),
  );
}

function secondDatabaseProject(url: string): TestProjectInlineConfiguration {
  for (const suite of SECOND_DATABASE_SUITES) {
    if (!namesATest(suite)) throw new Error(`the second database pass names ${suite}, which matches no file`);
  }
  const include = SECOND_DATABASE_SUITES.map((suite) =>
    suite.endsWith("/") ? `${suite}**/*.test.ts` : `${suite}*.test.ts`,
  );
  return {
    extends: true,
    test: {
      name: "postgres-second",
      include,
      // Its own global setup: the run's template database on that server (globalSetup.ts reads
      // the URL from this project's env).
      globalSetup: ["test/support/globalSetup.ts"],
      env: { TEST_DATABASE_URL: url },
      ...SHARED_MODULE_GRAPH,
    },
  };
}

/** Run isolated (the "processes" project below): the reliability and end-to-end suites. */
const PROCESS_SUITES = ["test/reliability/**/*.test.ts", "test/e2e/**/*.test.ts"];

/**
 * The files of a worker share one module graph (`isolate: false`): each test file no longer loads
 * its own copy of the libraries and of src/, which took about a third of the suites' worker time
 * (import 350 -> 95 s, the run's wall 893 -> 587 s here; docs/decisions/0036). What a file could
 * leave behind for the next: the environment, reset before every file (restoreEnvironment.ts);
 * every database a file uses is its own clone, every server and simulator its own port.
 */
const SHARED_MODULE_GRAPH: { isolate: boolean; setupFiles: string[] } = {
  isolate: false,
  setupFiles: ["test/support/restoreEnvironment.ts"],
};

const secondDatabaseUrl = process.env.TEST_SECOND_DATABASE_URL;

export default defineConfig({
  test: {
    // Browser tests need Chromium, which the README's set-up does not install: they run only from
    // `npm run test:browser` (vitest.browser.config.ts), which .ci/run calls after installing it.
    exclude: ["test/browser/**", "**/node_modules/**"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits on observed state; its default 1 s is a deadline a loaded machine can miss
    // (every other wait here is a hang guard of tens of seconds).
    expect: { poll: { timeout: 30_000 } },
    maxWorkers: 2,
    // The slowest files first (test/durations.json), so the run does not end on one long file.
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          // Unit tests touch no database, no environment variable and no process: one module
          // graph per worker instead of one per file (85 files: 111 s -> 39 s measured, ADR 0036).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "suites",
          include: ["test/**/*.test.ts"],
          globalSetup: ["test/support/globalSetup.ts"],
          exclude: [...PROCESS_SUITES, "test/unit/**", "test/browser/**", "**/node_modules/**"],
          ...SHARED_MODULE_GRAPH,
        },
      },
      {
        extends: true,
        test: {
          // The suites whose subject is processes (killed, restarted, partitioned, spawned side by
          // side): each file in a process of its own. Their own imports are a small part of their
          // time, and in a shared graph one of them (marketCreationCrash) twice took 128 s against
          // 11-16 s, its jobs waiting out every retry (ADR 0036).
          name: "processes",
          include: PROCESS_SUITES,
          globalSetup: ["test/support/globalSetup.ts"],
        },
      },
      // Side by side with the first pass in one run, on the same two workers: no second start-up,
      // and no second tail of one long file (ADR 0036).
      ...(secondDatabaseUrl ? [secondDatabaseProject(secondDatabaseUrl)] : []),
    ],
  },
});
