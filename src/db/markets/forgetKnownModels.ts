import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketModels } from "../schema.ts";

/** Forgets a market's model set (it is about to change, or was found stale): the next use reads upstream. */
export async function forgetKnownModels(db: DbExecutor, marketId: string): Promise<void> {
  await db.delete(marketModels).where(eq(marketModels.marketId, marketId));
}
