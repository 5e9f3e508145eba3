import { and, eq, inArray } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketTags } from "../schema.ts";

/** Forgets the keys remembered for `tagIds` of a market (a category renamed, moved or deleted). */
export async function forgetKnownTagIds(
  db: DbExecutor,
  marketId: string,
  tagIds: readonly string[],
): Promise<void> {
  if (tagIds.length === 0) return;
  await db
    .delete(marketTags)
    .where(and(eq(marketTags.marketId, marketId), inArray(marketTags.tagId, [...tagIds])));
}
