import { describe, expect, it } from "vitest";

import { promptType } from "../../../src/prompts/promptType.ts";

describe("promptType", () => {
  const brand = { name: "Acme", aliases: ["Roadrunner Co", "  "] };

  it.each([
    ["Is ACME any good?", "branded"],
    ["acme vs others", "branded"],
    ["best roadrunner co products", "branded"],
    ["best anvils", "non-branded"],
    ["ac me", "non-branded"],
  ])("%j is %s", (text, type) => {
    expect(promptType(text, brand)).toBe(type);
  });
});
