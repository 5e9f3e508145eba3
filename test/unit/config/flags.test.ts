import { describe, expect, it } from "vitest";

import {
  brandAiCeiling,
  durationMs,
  dynamicAllocationEnabled,
  MAX_TIMER_MS,
} from "../../../src/config/flags.ts";

describe("flags are read per use", () => {
  it("dynamic allocation is on only for the exact string true", () => {
    expect(dynamicAllocationEnabled({ SERENITY_DYNAMIC_ALLOCATION: "true" })).toBe(true);
    for (const value of ["TRUE", "1", "yes", " true", undefined]) {
      expect(dynamicAllocationEnabled({ SERENITY_DYNAMIC_ALLOCATION: value })).toBe(false);
    }
  });

  it("ignores malformed ceilings with a warning", () => {
    const warnings: string[] = [];
    const ceiling = brandAiCeiling(
      { SERENITY_BRAND_AI_CEILING_PROJECTS: "5", SERENITY_BRAND_AI_CEILING_PROMPTS: "lots" },
      (warning) => warnings.push(warning.variable),
    );
    expect(ceiling).toEqual({ projects: 5, prompts: undefined });
    expect(warnings).toEqual(["SERENITY_BRAND_AI_CEILING_PROMPTS"]);
  });
});

describe("durationMs: the one reader of a duration variable", () => {
  const read = (value: string | undefined, zero?: "allowed") =>
    durationMs("SERENITY_SOME_MS", 1234, { SERENITY_SOME_MS: value }, zero ? { zero } : {});

  it("takes whole milliseconds, trimmed; unset or blank is the default", () => {
    expect(read("250")).toBe(250);
    expect(read(" 250\n")).toBe(250);
    expect(read(undefined)).toBe(1234);
    expect(read("")).toBe(1234);
    expect(read("   ")).toBe(1234);
  });

  it("throws naming the variable on anything else (never silently the default)", () => {
    for (const value of ["60s", "-1", "+5", "1.5", "1e3", "0x10", "ten"]) {
      expect(() => read(value)).toThrow(/^SERENITY_SOME_MS must be a whole number of milliseconds$/);
    }
  });

  it("refuses more than a timer can wait (2^31 − 1 ms): Node would run such an interval every millisecond", () => {
    expect(read(String(MAX_TIMER_MS))).toBe(MAX_TIMER_MS);
    for (const value of [String(MAX_TIMER_MS + 1), "99999999999999999999"]) {
      expect(() => read(value)).toThrow(/^SERENITY_SOME_MS must be at most 2147483647 ms/);
    }
  });

  it("reads 0 as the default unless the setting allows 0", () => {
    expect(read("0")).toBe(1234);
    expect(read("0", "allowed")).toBe(0);
  });
});
