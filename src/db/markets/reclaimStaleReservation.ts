import { and, eq, lt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";
import type { MarketRow, MarketSlice } from "./marketRow.ts";

/**
 * Frees a slice whose `creating` reservation was abandoned (its process died mid-create): one
 * guarded delete of a reservation not touched since `staleBefore`. Returns the reclaimed row (its
 * `projectId`, if any, is an orphan project to delete), or undefined when there was none.
 */
export async function reclaimStaleReservation(
  db: DbExecutor,
  slice: MarketSlice & { staleBefore: Date },
): Promise<MarketRow | undefined> {
  const [row] = await db
    .delete(markets)
    .where(
      and(
        eq(markets.brandId, slice.brandId),
        eq(markets.geoTargetId, slice.geoTargetId),
        eq(markets.languageCode, slice.languageCode),
        eq(markets.status, "creating"),
        lt(markets.updatedAt, slice.staleBefore),
      ),
    )
    .returning();
  return row;
}
