import { readFileSync } from "node:fs";

import { beforeAll, describe, expect, it } from "vitest";

import {
  createLanguageValidator,
  LANGUAGE_MARGIN_THRESHOLD,
  type LanguageValidator,
  relativeMargin,
  SUPPORTED_LANGUAGES,
} from "../../../../src/generation/validation/languageValidator.ts";

/** The labelled set the repo carries (test/fixtures/README.md): ≥ 50 short questions per language. */
const SET = JSON.parse(readFileSync("test/fixtures/language-set.json", "utf8")).languages as Record<
  string,
  { general: string[]; brandHeavy: string[] }
>;

let validator: LanguageValidator;
beforeAll(async () => {
  validator = await createLanguageValidator();
});

describe("language validation threshold (ADR 0010)", () => {
  it("the labelled set has at least 50 texts per supported language, brand-heavy ones included", () => {
    for (const language of SUPPORTED_LANGUAGES) {
      const { general, brandHeavy } = SET[language]!;
      expect(general.length + brandHeavy.length).toBeGreaterThanOrEqual(50);
      expect(brandHeavy.length).toBeGreaterThanOrEqual(10);
    }
  });

  it(`at ${LANGUAGE_MARGIN_THRESHOLD} accepts ≥ 98 % of correct-language texts and 0 wrong-language ones`, () => {
    let correct = 0;
    let accepted = 0;
    const wrongAccepted: string[] = [];
    for (const language of SUPPORTED_LANGUAGES) {
      const texts = [...SET[language]!.general, ...SET[language]!.brandHeavy];
      for (const text of texts) {
        correct += 1;
        if (validator.check(text, language).passed) accepted += 1;
        // The same text checked as if it were meant for every other market language.
        for (const other of SUPPORTED_LANGUAGES) {
          if (other !== language && validator.check(text, other).passed)
            wrongAccepted.push(`${other}: ${text}`);
        }
      }
    }
    expect(accepted / correct).toBeGreaterThanOrEqual(0.98);
    expect(wrongAccepted).toEqual([]);
  });

  it("reports the detected language and the margin, and fails closed on a language it does not know", () => {
    const french = validator.check("Quelle crème hydratante choisir pour une peau sèche ?", "fr");
    expect(french.detected).toBe("fr");
    expect(french.passed).toBe(true);
    expect(french.margin).toBeGreaterThan(LANGUAGE_MARGIN_THRESHOLD);
    expect(validator.check("Quelle crème hydratante choisir pour une peau sèche ?", "de")).toMatchObject({
      detected: "fr",
      passed: false,
    });
    expect(validator.check("What is the best moisturiser?", "xx")).toEqual({
      detected: null,
      margin: 0,
      passed: false,
    });
    // A market language outside the seven but known to eld is checked among the seven plus itself.
    expect(validator.check("Jaki krem nawilżający jest najlepszy do suchej skóry?", "pl").passed).toBe(true);
    expect(validator.check("Which moisturiser is the best for dry skin?", "pl").passed).toBe(false);
  });

  it("defines the margin as (top − second) / top", () => {
    expect(relativeMargin({ fr: 0.8, es: 0.6, de: 0.2 })).toBe(0.25);
    expect(relativeMargin({ fr: 0.5 })).toBe(1);
    expect(relativeMargin({})).toBe(0);
  });

  it("keeps its own detector instances: another validator's subset does not leak into it", async () => {
    const other = await createLanguageValidator({ threshold: 0.5 });
    other.check("Jaki krem nawilżający jest najlepszy do suchej skóry?", "pl");
    expect(validator.check("Qual è la migliore crema per la pelle secca?", "it").passed).toBe(true);
    expect(other.threshold).toBe(0.5);
  });
});
