import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Browser tests need Chromium, which the README's set-up does not install: they run only from
    // `npm run test:browser` (vitest.browser.config.ts), which .ci/run calls after installing it.
    exclude: ["test/browser/**", "**/node_modules/**"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
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
          exclude: ["test/unit/**", "test/browser/**", "**/node_modules/**"],
        },
      },
    ],
  },
});
