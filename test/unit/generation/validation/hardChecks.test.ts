import { describe, expect, it } from "vitest";

import { hardCheckFailure } from "../../../../src/generation/validation/hardChecks.ts";

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
