import { describe, expect, it } from "vitest";

import { checkCategory, checkPromptText } from "../../../src/prompts/promptText.ts";

describe("prompt text checks", () => {
  it("trims texts and rejects empty, overlong and control characters", () => {
    expect(checkPromptText("  hello  ")).toEqual({ ok: true, value: "hello" });
    expect(checkPromptText("x".repeat(1000)).ok).toBe(true);
    expect(checkPromptText("x".repeat(1001))).toEqual({
      ok: false,
      message: "text must be at most 1000 characters",
    });
    expect(checkPromptText(" \n ")).toEqual({ ok: false, message: "text must not be empty" });
    expect(checkPromptText("a\u0007b")).toEqual({
      ok: false,
      message: "text must not contain control characters",
    });
    expect(checkCategory("c".repeat(101)).ok).toBe(false);
    expect(checkCategory(" pricing ")).toEqual({ ok: true, value: "pricing" });
  });
});
