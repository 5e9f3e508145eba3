import { readFileSync } from "node:fs";

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
    // The canonical code, not the deprecated alias "mo".
    ["Romanian", "ro"],
  ])("%s → %s (two-letter codes first)", (name, code) => {
    expect(codeForLanguageName(name)).toBe(code);
  });

  it("an unknown name has no code", () => {
    expect(codeForLanguageName("Elvish of the West")).toBeUndefined();
    expect(codeForLanguageName("Chinese Traditional")).toBeUndefined();
  });

  it("every name of the live language catalogue has its code (Chinese Traditional none, Filipino tl)", () => {
    const live = JSON.parse(
      readFileSync(new URL("../../fixtures/semrush/live-catalogues.json", import.meta.url), "utf8"),
    ) as { languages: { name: string; iso: string }[] };
    for (const { name, iso } of live.languages) {
      const expected = iso === "zh-tw" ? undefined : iso === "fil" ? "tl" : iso;
      expect(codeForLanguageName(name), name).toBe(expected);
    }
  });
});
