import { findKnownTags } from "../db/markets/findKnownTags.ts";
import { replaceKnownTags } from "../db/markets/replaceKnownTags.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { KnownFactsDeps } from "../markets/knownModels.ts";
import type { ProjectRef } from "../markets/market.ts";
import { readTaxonomyTags } from "./tagTaxonomy.ts";

/**
 * How long the record of a market's tags names dimensions before the tree is read again: a tag
 * re-parented upstream behind Serenity's back (in Semrush's own UI) is named right again within
 * this long. Moves made through Serenity forget the moved tag at once (src/prompts/categories.ts).
 */
export const TAG_RECORD_MAX_AGE_MS = 10 * 60_000;

/** The record's key for a tag known to be no value of our taxonomy (a subcategory, a foreign tag). */
const OUTSIDE = "outside:";

/**
 * Tag id → the taxonomy dimension it is a value of (`origin`, `category`…), for the tags a listing
 * names (ADR 0040). Named from the record Serenity keeps of the market's tags (`market_tags`), so a
 * listing costs no tree read; the record never drifts from upstream by one rule: when a listed tag
 * id is not in it, or it is older than TAG_RECORD_MAX_AGE_MS, the taxonomy part of the tree is read
 * once (at most six calls) and the record replaced by what it says — every listed tag that is not
 * one of our values is then recorded as outside, so it costs no read next time.
 */
export async function tagDimensions(
  deps: KnownFactsDeps,
  projects: ProjectEngineClient,
  market: { marketId: string; ref: ProjectRef },
  listedTagIds: Iterable<string>,
): Promise<Map<string, string>> {
  const recorded = (await findKnownTags(deps.db, [market.marketId])).get(market.marketId) ?? [];
  const rows = recorded.filter((row) => row.projectId === market.ref.projectId);
  const listed = new Set(listedTagIds);
  const known = new Set(rows.map((row) => row.tagId));
  const oldest = Math.min(...rows.map((row) => row.knownAt.getTime()));
  const fresh = rows.length > 0 && deps.clock.now().getTime() - oldest <= TAG_RECORD_MAX_AGE_MS;
  if (fresh && [...listed].every((id) => known.has(id))) {
    return dimensionsOf(rows.map((row) => [row.tagKey, row.tagId]));
  }

  const readAt = deps.clock.now();
  const keyed = await readTaxonomyTags(projects, market.ref);
  const values = new Set(keyed.values());
  const outside = new Set([
    ...rows.filter((row) => row.tagKey.startsWith(OUTSIDE)).map((row) => row.tagId),
    ...listed,
  ]);
  for (const id of outside) if (!values.has(id)) keyed.set(`${OUTSIDE}${id}`, id);
  try {
    await replaceKnownTags(deps.db, {
      marketId: market.marketId,
      projectId: market.ref.projectId,
      tags: keyed,
      knownAt: readAt,
      seen: recorded,
    });
  } catch (error) {
    deps.logger.warn({ err: error, marketId: market.marketId }, "could not record a market's tag tree");
  }
  return dimensionsOf(keyed);
}

/** `root=value` keys name their id's dimension; roots and outside tags name none. */
function dimensionsOf(entries: Iterable<[string, string]>): Map<string, string> {
  const dimensions = new Map<string, string>();
  for (const [key, id] of entries) {
    const at = key.indexOf("=");
    if (at > 0 && !key.startsWith(OUTSIDE)) dimensions.set(id, key.slice(0, at));
  }
  return dimensions;
}
