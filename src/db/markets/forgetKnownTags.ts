import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketTags } from "../schema.ts";

/** Forgets every tag id of a market (one was found stale upstream): the next use resolves them again. */
export async function forgetKnownTags(db: DbExecutor, marketId: string): Promise<void> {
  await db.delete(marketTags).where(eq(marketTags.marketId, marketId));
}
