import { promptType } from "../domain/brandedText.ts";
import type { ProjectPromptEntry } from "./projectPrompts.ts";
import { checkCategory, checkPromptText, type TextCheck } from "./promptText.ts";
import type { TagPath } from "./tagTaxonomy.ts";

/** Where a text came from: the `origin` and `source` tags every written prompt carries, in order. */
export type PromptProvenance = readonly TagPath[];

export interface BrandNames {
  name: string;
  aliases: readonly string[];
}

/**
 * A text's tags: its provenance, `type` derived from the text (never trusted from the caller or the
 * generator) and `category` when it has a usable one.
 */
export function promptTags(
  text: string,
  brand: BrandNames,
  provenance: PromptProvenance,
  category: TextCheck | undefined,
): TagPath[] {
  return [
    ...provenance,
    { root: "type", value: promptType(text, brand) },
    ...(category?.ok ? [{ root: "category" as const, value: category.value }] : []),
  ];
}

const API_PROVENANCE: PromptProvenance = [
  { root: "origin", value: "human" },
  { root: "source", value: "api" },
];
const GENERATED_PROVENANCE: PromptProvenance = [
  { root: "source", value: "semrush" },
  { root: "origin", value: "ai" },
];

/**
 * One item of a bulk request as an entry, or why it is invalid (it then fails alone): its text
 * trimmed, otherwise kept exactly. Repeated texts stay entries; the write gives them one outcome.
 */
export function apiEntry(
  index: number,
  item: { text: string; category?: string | undefined },
  brand: BrandNames,
): { ok: true; entry: ProjectPromptEntry } | { ok: false; message: string } {
  const text = checkPromptText(item.text);
  if (!text.ok) return text;
  const category = item.category === undefined ? undefined : checkCategory(item.category);
  if (category && !category.ok) return category;
  return {
    ok: true,
    entry: { index, text: text.value, tags: promptTags(text.value, brand, API_PROVENANCE, category) },
  };
}

/**
 * Generated texts as entries: trimmed (inner whitespace collapsed), de-duplicated (first wins),
 * each tagged `source=semrush`, `origin=ai`, and its `category` when it has a usable one.
 */
export function generatedEntries(
  prompts: readonly { prompt: string; category: string }[],
  brand: BrandNames,
): ProjectPromptEntry[] {
  const seen = new Set<string>();
  const entries: ProjectPromptEntry[] = [];
  for (const prompt of prompts) {
    const text = prompt.prompt.trim().replace(/\s+/g, " ");
    if (text === "" || seen.has(text)) continue;
    seen.add(text);
    const category = prompt.category.trim() === "" ? undefined : checkCategory(prompt.category);
    entries.push({
      index: entries.length,
      text,
      tags: promptTags(text, brand, GENERATED_PROVENANCE, category),
    });
  }
  return entries;
}
