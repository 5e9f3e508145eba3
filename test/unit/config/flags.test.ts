import { describe, expect, it } from "vitest";

import { brandAiCeiling, dynamicAllocationEnabled } from "../../../src/config/flags.ts";

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
