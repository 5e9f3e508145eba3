import { describe, expect, it } from "vitest";

import { parseOperatorTokens } from "../../../src/config/operatorTokens.ts";

describe("SERENITY_UPSTREAM_TOKEN's tokens", () => {
  it("are listed with commas; spaces and empty entries are dropped", () => {
    expect(parseOperatorTokens(undefined)).toEqual([]);
    expect(parseOperatorTokens("  ")).toEqual([]);
    expect(parseOperatorTokens("one")).toEqual(["one"]);
    expect(parseOperatorTokens(" one , two,,three ")).toEqual(["one", "two", "three"]);
  });
});
