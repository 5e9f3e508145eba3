import { describe, expect, it } from "vitest";

import { budgetLimitsOf } from "../../../src/budget/budgetSettings.ts";
import { ConfigError, DEFAULT_UPSTREAM_BUDGET, loadConfig } from "../../../src/config/env.ts";

describe("the upstream budget's settings", () => {
  it("default to Semrush's published limits: 10 per second, 10 concurrent, 3 background slots", () => {
    expect(loadConfig({}).upstreamBudget).toEqual(DEFAULT_UPSTREAM_BUDGET);
    expect(budgetLimitsOf(DEFAULT_UPSTREAM_BUDGET)).toEqual({
      slots: 10,
      windowMs: 1_050,
      backgroundShare: 3,
    });
  });

  it("are read from the environment and validated at boot, naming the variable", () => {
    const config = loadConfig({
      SERENITY_UPSTREAM_RATE_PER_SECOND: "5",
      SERENITY_UPSTREAM_CONCURRENT: "8",
      SERENITY_UPSTREAM_BACKGROUND_SLOTS: "2",
      SERENITY_UPSTREAM_WINDOW_MARGIN_MS: "0",
    });
    expect(budgetLimitsOf(config.upstreamBudget)).toEqual({ slots: 5, windowMs: 1_000, backgroundShare: 2 });
    expect(() => loadConfig({ SERENITY_UPSTREAM_CONCURRENT: "-1" })).toThrow(ConfigError);
    expect(() => loadConfig({ SERENITY_UPSTREAM_RATE_PER_SECOND: "ten" })).toThrow(
      /SERENITY_UPSTREAM_RATE_PER_SECOND/,
    );
    expect(() => loadConfig({ SERENITY_UPSTREAM_BACKGROUND_SLOTS: "0" })).toThrow(ConfigError);
  });

  it("0 on either limit means unlimited: no budget at all (no database round trip per call)", () => {
    expect(budgetLimitsOf({ ...DEFAULT_UPSTREAM_BUDGET, perSecond: 0 })).toBeUndefined();
    expect(budgetLimitsOf({ ...DEFAULT_UPSTREAM_BUDGET, concurrent: 0 })).toBeUndefined();
  });

  it("never lets background work hold more than the slots there are", () => {
    expect(
      budgetLimitsOf({ ...DEFAULT_UPSTREAM_BUDGET, concurrent: 2, backgroundShare: 5 })?.backgroundShare,
    ).toBe(2);
  });
});
