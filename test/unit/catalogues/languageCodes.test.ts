import { describe, expect, it } from "vitest";

import { codeForLanguageName, languageNameFor } from "../../../src/catalogues/languageCodes.ts";

describe("language codes", () => {
  it.each([
    ["en", "English"],
    ["FR", "French"],
    ["tl", "Filipino"],
    ["zh", "Chinese"],
  ])("%s is %s", (code, name) => {
    expect(languageNameFor(code)).toBe(name);
  });

  it.each(["xx", "e", "engl", "e1", ""])("%j has no name", (code) => {
    expect(languageNameFor(code)).toBeUndefined();
  });

  it.each([
    ["English", "en"],
    ["french", "fr"],
    ["Norwegian", "no"],
    ["Hebrew", "he"],
    ["Filipino", "tl"],
    // The live catalogue's name, which Intl does not give.
    ["Chinese Simplified", "zh"],
  ])("%s → %s (two-letter codes first)", (name, code) => {
    expect(codeForLanguageName(name)).toBe(code);
  });

  it("an unknown name has no code", () => {
    expect(codeForLanguageName("Elvish of the West")).toBeUndefined();
    expect(codeForLanguageName("Chinese Traditional")).toBeUndefined();
  });
});
