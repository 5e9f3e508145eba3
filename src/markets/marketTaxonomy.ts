import { marketTagSeedingEnabled } from "../config/flags.ts";
import { saveKnownTags } from "../db/markets/saveKnownTags.ts";
import { OWN_TAG_VALUES, rootKey, tagKey, TAXONOMY_ROOTS, type TaxonomyRoot } from "../domain/tagTaxonomy.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { KnownFactsDeps } from "./knownModels.ts";
import type { ProjectRef } from "./market.ts";

/**
 * A market's creation makes Serenity's taxonomy in its fresh project — the five roots in one call,
 * then the known values under `origin`, `source` and `type` (one call each, in parallel) — and
 * remembers their ids, so the first prompt write into the market resolves every tag it needs
 * without an upstream call (issue 36, item 6). Creation is already a paced job or a slow path; a
 * prompt write is interactive.
 *
 * Best effort: the project is new, so nothing is looked up first; a create refused (an adopted
 * project that already had them, a transient failure) keeps whatever was made and remembered, and
 * the first write resolves the rest as it always did (look up, then create). Never throws.
 */
export async function seedMarketTaxonomy(
  deps: KnownFactsDeps & { projects: ProjectEngineClient },
  ref: ProjectRef,
  marketId: string,
): Promise<number> {
  if (!marketTagSeedingEnabled()) return 0;
  const learned = new Map<string, string>();
  try {
    const roots = await deps.projects.createTags(ref.bearer, ref.workspaceId, ref.projectId, {
      names: [...TAXONOMY_ROOTS],
    });
    const rootIds = new Map<string, string>();
    for (const tag of roots) {
      if (tag.parentId !== null || !(TAXONOMY_ROOTS as readonly string[]).includes(tag.name)) continue;
      rootIds.set(tag.name, tag.id);
      learned.set(rootKey(tag.name as TaxonomyRoot), tag.id);
    }
    const byRoot = new Map<TaxonomyRoot, string[]>();
    for (const path of OWN_TAG_VALUES) byRoot.set(path.root, [...(byRoot.get(path.root) ?? []), path.value]);
    await Promise.all(
      [...byRoot].map(async ([root, values]) => {
        const parentId = rootIds.get(root);
        if (parentId === undefined) return;
        const made = await deps.projects.createTags(ref.bearer, ref.workspaceId, ref.projectId, {
          names: values,
          parentId,
        });
        for (const tag of made)
          if (values.includes(tag.name)) learned.set(tagKey({ root, value: tag.name }), tag.id);
      }),
    );
  } catch (error) {
    deps.logger.warn(
      { err: error, marketId },
      "market taxonomy not fully made; the first write resolves the rest",
    );
  }
  if (learned.size === 0) return 0;
  try {
    await saveKnownTags(deps.db, {
      marketId,
      projectId: ref.projectId,
      tags: learned,
      knownAt: deps.clock.now(),
    });
  } catch (error) {
    deps.logger.warn({ err: error, marketId }, "could not remember a market's tag ids");
  }
  return learned.size;
}
