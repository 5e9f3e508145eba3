import { and, eq, inArray } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets, marketTags } from "../schema.ts";

/**
 * Forgets the keys remembered for `tagIds` of a market (a category renamed, moved or deleted), on
 * the market's row lock, so a listing's replace of the record (replaceKnownTags) either sees the
 * record changed and writes nothing, or comes first and has its stale rows deleted here.
 */
export async function forgetKnownTagIds(
  db: DbExecutor,
  marketId: string,
  tagIds: readonly string[],
): Promise<void> {
  if (tagIds.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.select({ id: markets.id }).from(markets).where(eq(markets.id, marketId)).for("update");
    await tx
      .delete(marketTags)
      .where(and(eq(marketTags.marketId, marketId), inArray(marketTags.tagId, [...tagIds])));
  });
}
