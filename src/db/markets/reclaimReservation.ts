import { and, eq, lt, or } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";
import type { MarketRow, MarketSlice } from "./marketRow.ts";

/**
 * Frees a slice held by a `creating` reservation that nobody will finish: one guarded delete of a
 * reservation either not touched since `staleBefore` (its process died mid-create) or held under
 * the caller's own `reservationKey` (a redelivered job whose earlier delivery died after
 * reserving). Deleting rather than taking the row over gives the next reservation a new id, so a
 * delivery still running under the old one can no longer record a project on it or mark it ready.
 * Returns the reclaimed row (its `projectId`, if any, is an orphan project to delete), or
 * undefined when there was none. A `ready` market is never reclaimed.
 */
export async function reclaimReservation(
  db: DbExecutor,
  slice: MarketSlice & { staleBefore: Date; reservationKey?: string | null },
): Promise<MarketRow | undefined> {
  const [row] = await db
    .delete(markets)
    .where(
      and(
        eq(markets.brandId, slice.brandId),
        eq(markets.geoTargetId, slice.geoTargetId),
        eq(markets.languageCode, slice.languageCode),
        eq(markets.status, "creating"),
        or(
          lt(markets.updatedAt, slice.staleBefore),
          slice.reservationKey ? eq(markets.reservationKey, slice.reservationKey) : undefined,
        ),
      ),
    )
    .returning();
  return row;
}
