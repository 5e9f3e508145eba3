import { describe, expect, it } from "vitest";

import { duplicateKey, firstOfEachDuplicate } from "../../../../src/generation/validation/deduplication.ts";
import { foldText } from "../../../../src/generation/validation/textFolding.ts";

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
