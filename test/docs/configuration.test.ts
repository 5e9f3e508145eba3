import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { BOOT_SCHEMA_VARIABLES, DURATION_VARIABLES } from "../../src/config/env.ts";
import { CONFIG_VARIABLES } from "../../src/config/variables.ts";

/**
 * docs/configuration.md is generated from src/config/variables.ts (`npm run config:check` in CI
 * compares the file); this keeps the catalogue itself honest: every variable the boot schema
 * validates, every duration checked at start, and every variable the code names is listed, once.
 */
const listed = CONFIG_VARIABLES.flatMap((variable) => variable.names);

/** Names in src/ shaped like our variables that are not environment variables. */
const NOT_VARIABLES = new Set([
  "SEMRUSH_PUBLISHED_LIMITS", // a constant: Semrush's published request limits
  "SERENITY_TOKEN", // the shell variable the start banner tells the reader to export
  "SERENITY_DB_", // a prefix in a comment
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

describe("the configuration catalogue", () => {
  it("lists each variable once", () => {
    expect(listed.filter((name, index) => listed.indexOf(name) !== index)).toEqual([]);
  });

  it("lists every variable of the boot schema and every duration checked at start", () => {
    expect(BOOT_SCHEMA_VARIABLES.filter((name) => !listed.includes(name))).toEqual([]);
    expect(DURATION_VARIABLES.filter((name) => !listed.includes(name))).toEqual([]);
  });

  it("lists every SERENITY_/SEMRUSH_ variable the code names", () => {
    const named = new Set<string>();
    for (const file of sourceFiles("src")) {
      for (const match of readFileSync(file, "utf8").matchAll(/\b(?:SERENITY|SEMRUSH)_[A-Z0-9_]+\b/g)) {
        named.add(match[0]);
      }
    }
    expect([...named].filter((name) => !NOT_VARIABLES.has(name) && !listed.includes(name)).sort()).toEqual(
      [],
    );
  });

  it("says how each is read, and gives every duration its unit", () => {
    for (const variable of CONFIG_VARIABLES) {
      expect(["boot", "per use"]).toContain(variable.read);
      if (variable.names.some((name) => name.endsWith("_MS"))) expect(variable.unit).toBe("ms");
    }
  });
});
