import { describe, expect, it } from "vitest";

import { duplicateKey, firstOfEachDuplicate } from "../../../src/generation/validation/deduplication.ts";
import { hardCheckFailure } from "../../../src/generation/validation/hardChecks.ts";
import {
  categoryOf,
  groundingTopic,
  inferCategory,
  promptType,
} from "../../../src/generation/validation/promptTraits.ts";
import { foldText } from "../../../src/generation/validation/textFolding.ts";

const en = { language: "en", brandNames: ["Lumiere", "Booking.com"] };

describe("hard checks (§7 stage 1)", () => {
  it("accepts natural questions and requests in each language", () => {
    const accepted: [string, string][] = [
      ["en", "What is the best moisturiser for dry skin?"],
      ["en", "Recommend a quiet dishwasher for an open kitchen."],
      ["en", "How to descale a kettle"],
      ["fr", "Conseille-moi un lave-vaisselle silencieux."],
      ["fr", "Quelle crème choisir pour une peau sèche ?"],
      ["de", "Empfiehl mir eine leise Spülmaschine."],
      ["es", "¿Cuál es la mejor crema para piel seca?"],
      ["es", "Recomiéndame un lavavajillas silencioso."],
      ["it", "Consigliami una lavastoviglie silenziosa."],
      ["pt", "Recomenda-me uma máquina de lavar loiça silenciosa."],
      ["nl", "Raad me een stille vaatwasser aan."],
      ["en", "Is Booking.com cheaper than booking hotels directly?"],
      ["en", "What were the best phones of 2024 for photography?"],
      ["en", "Is a hotel rated 4.5/5 on review sites worth the price?"],
      ["de", "Wie zuverlässig ist ein Toyota Corolla nach 150.000 Kilometern?"],
    ];
    for (const [language, text] of accepted) {
      expect(hardCheckFailure(text, { language, brandNames: en.brandNames }), text).toBeNull();
    }
  });

  it("rejects each kind of bad prompt with its reason", () => {
    const rejected: [string, string][] = [
      ["Best serum?", "too_few_words"],
      [`${"Which moisturiser works well ".repeat(7)}?`, "too_many_words"],
      [`Which ${"supercalifragilistic ".repeat(9)}moisturiser is best?`, "too_long"],
      ["Is https://lumiere.example legit?", "url"],
      ["Is www.lumiere.example a real shop?", "url"],
      ["Is lumiere.example/fr the French store?", "url"],
      ["Is lumiere-paris.com a scam website?", "url"],
      ["Can I write to support@lumiere.example about refunds?", "email"],
      ["Is +33 1 23 45 67 89 the support number?", "phone"],
      ["What is the best {product} for dry skin?", "placeholder"],
      ["What is the best [PRODUCT] for dry skin?", "placeholder"],
      ["What is the best <product name> for dry skin?", "placeholder"],
      ["serum vitamine c avis", "bare_keyword"],
      ["best moisturiser dry skin winter", "bare_keyword"],
    ];
    for (const [text, reason] of rejected) expect(hardCheckFailure(text, en), text).toBe(reason);
  });
});

describe("de-duplication (§7 stage 2)", () => {
  it("is case-, accent- and punctuation-insensitive", () => {
    expect(foldText("Crème  HYDRATANTE, visage!")).toBe("creme hydratante visage");
    expect(duplicateKey("Quelle crème hydratante choisir ?", "fr")).toBe(
      duplicateKey("quelle creme hydratante choisir", "fr"),
    );
  });

  it("treats the same content words as near-duplicates, first one wins", () => {
    const texts = [
      "What is the best CRM for a startup?",
      "Which is the best CRM for startup?",
      "the best CRM, for a startup",
      "Which CRM do startups like most?",
    ];
    const { kept, dropped } = firstOfEachDuplicate(texts, (text) => text, "en");
    expect(kept).toEqual(["What is the best CRM for a startup?", "Which CRM do startups like most?"]);
    expect(dropped).toBe(2);
  });
});

describe("prompt traits", () => {
  it("derives branded from the brand or an alias as whole words, accent-insensitively", () => {
    expect(promptType("Is Lumière worth it for dry skin?", "Lumiere Skincare", ["Lumiere"])).toBe("branded");
    expect(promptType("Is lumiere skincare worth it?", "Lumiere Skincare", [])).toBe("branded");
    expect(promptType("Which luminous serum is worth it?", "Lumiere", [])).toBe("non-branded");
    expect(promptType("Are Lumieres worth it?", "Lumiere", [])).toBe("non-branded");
  });

  it("keeps a category of ours and infers one otherwise", () => {
    expect(categoryOf("task", "Quelle crème ?", "fr")).toBe("task");
    expect(categoryOf(" Comparative ", "x", "en")).toBe("comparative");
    expect(categoryOf("soins hydratants", "Quelle crème convient le mieux aux peaux sèches ?", "fr")).toBe(
      "solution",
    );
    expect(inferCategory("Is Notion better than Trello for weddings?", "en")).toBe("comparative");
    expect(inferCategory("What problems do people have with heat pumps?", "en")).toBe("pain_point");
    expect(inferCategory("How do I set up automatic backups?", "en")).toBe("task");
    expect(inferCategory("Which vacuum is best for pets?", "en")).toBe("solution");
    expect(inferCategory("What does a heat pump cost?", "en")).toBe("informational");
    expect(inferCategory("Comment integrer un serum a la vitamine C dans une routine ?", "fr")).toBe("task");
    expect(inferCategory("Welche Probleme gibt es mit Wärmepumpen?", "de")).toBe("pain_point");
    expect(inferCategory("¿Qué es mejor, Netflix o Disney Plus?", "es")).toBe("comparative");
    expect(inferCategory("Wat is de beste stofzuiger voor huisdieren?", "nl")).toBe("solution");
  });

  it("grounds a prompt in the highest-volume seed topic it mentions", () => {
    const seeds = [
      { topic: "prix et abonnements", volume: 8100 },
      { topic: "crème hydratante visage", volume: 9900 },
      { topic: "avis clients", volume: 5400 },
    ];
    expect(groundingTopic("Combien coûte un abonnement ?", seeds, "fr")).toBe("prix et abonnements");
    expect(groundingTopic("Quelle creme hydratante pour le visage et quels avis ?", seeds, "fr")).toBe(
      "crème hydratante visage",
    );
    expect(groundingTopic("Quel temps fera-t-il demain ?", seeds, "fr")).toBeNull();
  });
});
