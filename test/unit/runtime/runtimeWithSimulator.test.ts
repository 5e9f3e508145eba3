import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "../../../src/config/env.ts";
import { simulatorIndustries } from "../../../src/runtime/runtimeWithSimulator.ts";

describe("SERENITY_SIMULATOR_INDUSTRY", () => {
  it("becomes the built-in simulator's industries setting", () => {
    const config = loadConfig({ SERENITY_SIMULATOR_INDUSTRY: " lumiere.example=travel,*=banking " });
    expect(simulatorIndustries(config)).toEqual({ "lumiere.example": "travel", "*": "banking" });
    expect(simulatorIndustries(loadConfig({ SERENITY_SIMULATOR_INDUSTRY: "skin-care" }))).toEqual({
      "*": "skin-care",
    });
  });

  it("unset, leaves every domain to be read from its words", () => {
    expect(simulatorIndustries(loadConfig({}))).toEqual({});
  });

  it("refuses an unknown industry, naming the variable", () => {
    const config = loadConfig({ SERENITY_SIMULATOR_INDUSTRY: "lumiere.example=fashion" });
    expect(() => simulatorIndustries(config)).toThrow(ConfigError);
    expect(() => simulatorIndustries(config)).toThrow(
      /SERENITY_SIMULATOR_INDUSTRY unknown industry "fashion"/,
    );
  });
});
