import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketTags } from "../schema.ts";

/**
 * Replaces every tag id remembered for a market by `tags` (a fresh read of the project's tag tree),
 * in one transaction: a reader sees the old record or the new one, never a mix.
 */
export async function replaceKnownTags(
  db: DbExecutor,
  values: { marketId: string; projectId: string; tags: ReadonlyMap<string, string>; knownAt: Date },
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(marketTags).where(eq(marketTags.marketId, values.marketId));
    if (values.tags.size === 0) return;
    await tx.insert(marketTags).values(
      [...values.tags].map(([tagKey, tagId]) => ({
        marketId: values.marketId,
        projectId: values.projectId,
        tagKey,
        tagId,
        knownAt: values.knownAt,
      })),
    );
  });
}
