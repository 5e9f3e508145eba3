import { defineConfig } from "vitest/config";

/** Pages we serve, checked in headless Chromium (Debian's `chromium`, installed by .ci/run). */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
});
