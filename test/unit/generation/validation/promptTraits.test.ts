import { describe, expect, it } from "vitest";

import {
  categoryOf,
  groundingTopic,
  inferCategory,
} from "../../../../src/generation/validation/promptTraits.ts";

describe("prompt traits", () => {
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
