/**
 * Serenity's taxonomy on the upstream's generic tag tree (spec/gateway.md §4): root dimensions with
 * value children, e.g. `origin` → `human`. `category` holds customer-authored values (a market's
 * categories, spec/api.md §5); the other roots are Serenity's own.
 */
export const TAXONOMY_ROOTS = ["category", "intent", "origin", "type", "source"] as const;
export type TaxonomyRoot = (typeof TAXONOMY_ROOTS)[number];

/** A (dimension, value) pair, e.g. `{root: "origin", value: "human"}`. */
export interface TagPath {
  root: TaxonomyRoot;
  value: string;
}

export function tagKey(path: TagPath): string {
  return `${path.root}=${path.value}`;
}

/** The key a root dimension's own id is known under (`origin`); a value's is `tagKey` (`origin=human`). */
export function rootKey(root: TaxonomyRoot): string {
  return root;
}

/**
 * The values Serenity itself writes (the provenance of API and generated prompts, and the branded
 * classification): known in advance, so a market's creation makes them with its roots and a
 * prompt write finds them known (issue 36, item 6).
 */
export const OWN_TAG_VALUES: readonly TagPath[] = [
  { root: "origin", value: "human" },
  { root: "origin", value: "ai" },
  { root: "source", value: "api" },
  { root: "source", value: "semrush" },
  { root: "type", value: "branded" },
  { root: "type", value: "non-branded" },
];
