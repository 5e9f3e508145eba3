import { describe, expect, it } from "vitest";

import { namesBrand, promptType } from "../../../src/domain/brandedText.ts";

/** The one branded classifier (ADR 0041): its rules, language by language. */
describe("promptType", () => {
  const brand = { name: "Acme", aliases: ["Roadrunner Co", "  "] };

  it.each([
    ["Is ACME any good?", "branded"],
    ["acme vs others", "branded"],
    ["best roadrunner co products", "branded"],
    ["Acme's anvils", "branded"],
    ["(acme) or not", "branded"],
    ["best anvils", "non-branded"],
    ["ac me", "non-branded"],
    ["acmeville anvils", "non-branded"],
  ])("%j is %s", (text, type) => {
    expect(promptType(text, brand)).toBe(type);
  });
});

describe("namesBrand, per language", () => {
  it.each([
    // English: case, possessive, plurals (s, es, y → ies), whole words.
    ["en", "Are Lumieres worth it?", ["Lumiere"], true],
    ["en", "Which Dyson vacuums are best?", ["dyson"], true],
    ["en", "Do Porsches hold value?", ["Porsche"], true],
    ["en", "Are Harley Daviddsons loud?", ["Harley Davidson"], false],
    ["en", "Two Bentleys or one Rolls?", ["Bentley"], true],
    ["en", "Which luminous serum is worth it?", ["Lumiere"], false],
    ["en", "Is lumiere skincare worth it?", ["Lumiere Skincare"], true],
    // French and Spanish: diacritics either way.
    ["fr", "La crème Lumière est-elle efficace ?", ["Lumiere"], true],
    ["fr", "Que vaut la marque lumiere ?", ["Lumière"], true],
    ["es", "¿Qué opinan de Peñalver?", ["Penalver"], true],
    ["es", "¿Los Nestlés son buenos?", ["Nestlé"], true],
    // German: ß folds to ss, umlauts drop their marks.
    ["de", "Ist Straße Möbel gut?", ["Strasse Mobel"], true],
    ["de", "Wie gut ist BÄR Schuhe?", ["Bär"], true],
    // Chinese: no word spaces; a Han name anywhere, a Latin name against Han characters.
    ["zh", "索尼的耳机怎么样？", ["索尼"], true],
    ["zh", "Sony的耳机怎么样？", ["Sony"], true],
    ["zh", "哪个牌子的耳机最好？", ["索尼"], false],
    // Japanese: katakana and full-width Latin fold to one form.
    ["ja", "ソニーのヘッドホンはどうですか", ["ソニー"], true],
    ["ja", "ＳＯＮＹのヘッドホン", ["Sony"], true],
    ["ja", "おすすめのヘッドホンは", ["ソニー"], false],
    // Thai: no word spaces; tone marks compare alike.
    ["th", "หูฟังโซนี่ดีไหม", ["โซนี่"], true],
    ["th", "หูฟังยี่ห้อไหนดี", ["โซนี่"], false],
  ])("%s: %j names %j → %s", (_language, text, names, named) => {
    expect(namesBrand(text, names)).toBe(named);
  });

  it("an empty or blank name names nothing", () => {
    expect(namesBrand("anything at all", ["", "   ", "!!"])).toBe(false);
  });
});
