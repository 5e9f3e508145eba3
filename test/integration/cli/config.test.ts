import { describe, expect, it } from "vitest";

import { runCli } from "../../support/cli.ts";

describe("configuration errors", () => {
  it.each([
    ["PORT", "eighty"],
    ["DATABASE_URL", "mysql://nope"],
    ["SEMRUSH_PROJECTS_BASE_URL", "http://semrush.example.com"],
    ["SERENITY_CREDENTIAL_KEY", "too-short"],
  ])("a bad %s is one line naming it, exit 1", async (variable, value) => {
    const result = await runCli(["migrate"], { [variable]: value });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });
});
