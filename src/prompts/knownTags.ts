import type { DbExecutor } from "../db/database.ts";
import { findKnownModels } from "../db/markets/findKnownModels.ts";
import { findKnownTags } from "../db/markets/findKnownTags.ts";
import { forgetKnownTags } from "../db/markets/forgetKnownTags.ts";
import { saveKnownTags } from "../db/markets/saveKnownTags.ts";
import type { KnownFactsDeps, MarketProject } from "../markets/knownModels.ts";

/**
 * What Serenity knows about a market's project before asking upstream: the model set it tracks and
 * the ids of our taxonomy's tags in it (tables `market_models`, `market_tags`). Facts recorded for
 * another project id (a market row that changed project) are ignored.
 */
export interface KnownMarketFacts {
  marketId: string;
  /** Catalogue ids of the tracked models; undefined when not known. */
  modelIds: readonly string[] | undefined;
  /** Tag ids by key (`origin` for a root, `origin=human` for a value). */
  tagIds: ReadonlyMap<string, string>;
}

/** The known facts of `markets`, two indexed reads for all of them. */
export async function loadKnownFacts(
  db: DbExecutor,
  markets: readonly { id: string; projectId: string | null }[],
): Promise<Map<string, KnownMarketFacts>> {
  const ids = markets.map((market) => market.id);
  const [models, tags] = await Promise.all([findKnownModels(db, ids), findKnownTags(db, ids)]);
  return new Map(
    markets.map((market) => {
      const known = models.get(market.id);
      return [
        market.id,
        {
          marketId: market.id,
          modelIds: known && known.projectId === market.projectId ? known.modelIds : undefined,
          tagIds: new Map(
            (tags.get(market.id) ?? [])
              .filter((row) => row.projectId === market.projectId)
              .map((row) => [row.tagKey, row.tagId]),
          ),
        },
      ];
    }),
  );
}

/** Remembers tag ids learned upstream; never fails the caller. */
export async function rememberTags(
  deps: KnownFactsDeps,
  market: MarketProject,
  learned: ReadonlyMap<string, string>,
): Promise<void> {
  try {
    await saveKnownTags(deps.db, {
      marketId: market.marketId,
      projectId: market.projectId,
      tags: learned,
      knownAt: deps.clock.now(),
    });
  } catch (error) {
    deps.logger.warn({ err: error, marketId: market.marketId }, "could not remember a market's tag ids");
  }
}

/** Forgets every tag id of the market (one was found stale upstream); never fails the caller. */
export async function forgetTags(deps: KnownFactsDeps, marketId: string): Promise<void> {
  try {
    await forgetKnownTags(deps.db, marketId);
  } catch (error) {
    deps.logger.warn({ err: error, marketId }, "could not forget a market's tag ids");
  }
}
