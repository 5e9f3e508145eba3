import { and, eq, lt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { markets } from "../schema.ts";

/**
 * A market's project now carries the brand's identity of `identityVersion`. Guarded so a slower
 * delivery that synced an older version never lowers what a newer one recorded; false when
 * nothing was written (the market is gone, or already at that version or later).
 */
export async function recordMarketIdentity(
  db: DbExecutor,
  input: { marketId: string; identityVersion: number; now: DatabaseTime },
): Promise<boolean> {
  const rows = await db
    .update(markets)
    .set({ identityVersion: input.identityVersion, updatedAt: databaseNow(input.now) })
    .where(and(eq(markets.id, input.marketId), lt(markets.identityVersion, input.identityVersion)))
    .returning({ id: markets.id });
  return rows.length > 0;
}
