import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Browser tests need Chromium, which the README's set-up does not install: they run only from
    // `npm run test:browser` (vitest.browser.config.ts), which .ci/run calls after installing it.
    exclude: ["test/browser/**", "**/node_modules/**"],
    globalSetup: ["test/support/globalSetup.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
});
