import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { DURATION_VARIABLES } from "../../../src/config/env.ts";

/**
 * Every duration variable read per use (`durationMs("SERENITY_…")` anywhere in src/) is checked at
 * boot by loadConfig, so a malformed value fails the start instead of a request. A new per-use
 * variable not added to DURATION_VARIABLES fails here.
 */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(path.join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [path.join(dir, entry.name)]
        : [],
  );
}

describe("duration variables checked at boot", () => {
  it("include every variable src/ reads with durationMs", () => {
    const root = path.resolve(import.meta.dirname, "../../../src");
    const read = new Set<string>();
    for (const file of sourceFiles(root)) {
      for (const match of readFileSync(file, "utf8").matchAll(/durationMs\(\s*"(SERENITY_[A-Z_]+)"/g)) {
        read.add(match[1]!);
      }
    }
    expect(read.size).toBeGreaterThan(5);
    const checked = new Set<string>(DURATION_VARIABLES);
    expect([...read].filter((variable) => !checked.has(variable))).toEqual([]);
  });
});
