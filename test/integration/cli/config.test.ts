import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { runCli } from "../../support/cli.ts";

/*
 * The process boundary of each way the CLI refuses to start: one line on stderr, exit 1, nothing
 * started. Once per path through it (a bad variable, production mode, a data directory): which
 * variable or reason each line names, for every kind of bad value, is tested in-process
 * (test/unit/config/env.test.ts, dataDirectory.test.ts) — a process per case proved nothing more.
 */
describe("configuration errors", () => {
  it.each([["PORT", "eighty"]])("a bad %s is one line naming it, exit 1", async (variable, value) => {
    const result = await runCli(["migrate"], { [variable]: value });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });
});

describe("production mode", () => {
  it("`serve` under NODE_ENV=production with the development defaults is one line naming them all, exit 1", async () => {
    const result = await runCli(["serve"], {
      NODE_ENV: "production",
      DATABASE_URL: undefined,
      HOST: undefined,
      SEMRUSH_PROJECTS_BASE_URL: undefined,
      SEMRUSH_USERS_BASE_URL: undefined,
      SERENITY_AUTH_SECRET: undefined,
      SERENITY_AUTH_JWKS_URL: undefined,
      SERENITY_CREDENTIAL_KEY: undefined,
      PORT: "0",
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    for (const variable of [
      "DATABASE_URL",
      "SEMRUSH_PROJECTS_BASE_URL",
      "SERENITY_AUTH_SECRET",
      "SERENITY_CREDENTIAL_KEY",
      "HOST",
    ]) {
      expect(lines[0]).toContain(variable);
    }
    // It refused before starting anything: no embedded database, no simulator, no listener.
    expect(result.stdout).toBe("");
  });
});

describe("data directory errors", () => {
  const aFile = async () => {
    const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "serenity-cli-")), "data");
    await fs.writeFile(file, "not a directory");
    return file;
  };
  it.each([["a file", aFile, "it is a file, not a directory"]])(
    "a SERENITY_DATA_DIR that is %s is one line, exit 1",
    async (_label, makeDir, reason) => {
      const dir = await makeDir();
      const result = await runCli(["serve"], { SERENITY_DATA_DIR: dir, PORT: "0", DATABASE_URL: undefined });
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        `serenity: SERENITY_DATA_DIR ${dir} cannot be used: ${reason}; point SERENITY_DATA_DIR at a writable directory`,
      );
    },
  );
});
