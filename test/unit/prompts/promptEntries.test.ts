import { describe, expect, it } from "vitest";

import { generatedEntries } from "../../../src/prompts/promptEntries.ts";

const brand = { name: "Lumiere", aliases: ["Lumière Paris"] };

describe("generatedEntries", () => {
  it("trims, collapses whitespace and de-duplicates (first wins), keeping the order", () => {
    const entries = generatedEntries(
      [
        { prompt: "  Quelle crème   choisir en hiver ? ", category: "solution" },
        { prompt: "Quelle crème choisir en hiver ?", category: "comparative" },
        { prompt: "   ", category: "task" },
        { prompt: "Lumiere ou Nivea pour les peaux sèches ?", category: "comparative" },
      ],
      brand,
    );
    expect(entries.map((entry) => [entry.index, entry.text])).toEqual([
      [0, "Quelle crème choisir en hiver ?"],
      [1, "Lumiere ou Nivea pour les peaux sèches ?"],
    ]);
    expect(entries[0]!.tags).toContainEqual({ root: "category", value: "solution" });
  });

  it("tags source=semrush and origin=ai, derives type from the text, and skips an empty category", () => {
    const [nonBranded, branded, aliased] = generatedEntries(
      [
        { prompt: "Quelle crème choisir en hiver ?", category: "" },
        { prompt: "Que vaut LUMIERE pour les peaux sèches ?", category: "informational" },
        { prompt: "Où acheter Lumière Paris à Lyon ?", category: "task" },
      ],
      brand,
    );
    expect(nonBranded!.tags).toEqual([
      { root: "source", value: "semrush" },
      { root: "origin", value: "ai" },
      { root: "type", value: "non-branded" },
    ]);
    expect(branded!.tags).toContainEqual({ root: "type", value: "branded" });
    expect(aliased!.tags).toContainEqual({ root: "type", value: "branded" });
  });
});
