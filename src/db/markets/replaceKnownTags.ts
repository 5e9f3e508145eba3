import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets, marketTags } from "../schema.ts";
import { type KnownTagRow, knownTagRows } from "./knownTagRow.ts";

/** What a listing saw of the record before it read the tree: the rows, by key, id and time. */
function signatureOf(rows: readonly Pick<KnownTagRow, "tagKey" | "tagId" | "knownAt">[]): string {
  return rows
    .map((row) => `${row.tagKey}\u0000${row.tagId}\u0000${row.knownAt.getTime()}`)
    .sort()
    .join("\n");
}

/**
 * Replaces every tag id remembered for a market by `tags` (a fresh read of the project's tag tree),
 * in one transaction: a reader sees the old record or the new one, never a mix. Only when the record
 * is still what the caller saw before its read (`seen`): a rename, move or delete that forgot a tag
 * meanwhile (forgetKnownTagIds, serialised with this on the market's row), or another writer,
 * changed it, and the caller's read may predate that change — then nothing is written and the next
 * listing reads again. Answers whether it wrote.
 */
export async function replaceKnownTags(
  db: DbExecutor,
  values: {
    marketId: string;
    projectId: string;
    tags: ReadonlyMap<string, string>;
    knownAt: Date;
    seen: readonly Pick<KnownTagRow, "tagKey" | "tagId" | "knownAt">[];
  },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.select({ id: markets.id }).from(markets).where(eq(markets.id, values.marketId)).for("update");
    const current = await tx
      .select({ tagKey: marketTags.tagKey, tagId: marketTags.tagId, knownAt: marketTags.knownAt })
      .from(marketTags)
      .where(eq(marketTags.marketId, values.marketId));
    if (signatureOf(current) !== signatureOf(values.seen)) return false;
    await tx.delete(marketTags).where(eq(marketTags.marketId, values.marketId));
    if (values.tags.size === 0) return true;
    await tx.insert(marketTags).values(knownTagRows(values));
    return true;
  });
}
