import { describe, expect, it } from "vitest";

import { isSampleWorthRecording, UNCHANGED_SAMPLE_SPACING_MS } from "../../../src/poolView/poolHistory.ts";

describe("isSampleWorthRecording", () => {
  it("records the first sample, any change at once, and an unchanged pool once per spacing", () => {
    expect(isSampleWorthRecording(undefined, { key: "a", at: 0 })).toBe(true);
    expect(isSampleWorthRecording({ key: "a", at: 0 }, { key: "b", at: 1 })).toBe(true);
    expect(
      isSampleWorthRecording({ key: "a", at: 0 }, { key: "a", at: UNCHANGED_SAMPLE_SPACING_MS - 1 }),
    ).toBe(false);
    expect(isSampleWorthRecording({ key: "a", at: 0 }, { key: "a", at: UNCHANGED_SAMPLE_SPACING_MS })).toBe(
      true,
    );
  });
});
