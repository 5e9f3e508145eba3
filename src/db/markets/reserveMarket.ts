import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { markets } from "../schema.ts";
import type { MarketRow, MarketSlice } from "./marketRow.ts";

/**
 * Reserves a slice with a `creating` row before the upstream project exists. The table's unique
 * (brand, geo target, language) is the only duplicate guard (upstream allows duplicate slices):
 * undefined means the slice is already taken, by a market or by a concurrent create.
 * `reservationKey` names a holder that may come back for the reservation (a job's lineage); the
 * row keeps it once ready, so a redelivery can recognise a create it already finished.
 */
export async function reserveMarket(
  db: DbExecutor,
  values: MarketSlice & {
    country: string;
    workspaceId: string;
    reservationKey?: string | null;
    now: DatabaseTime;
  },
): Promise<MarketRow | undefined> {
  const [row] = await db
    .insert(markets)
    .values({
      brandId: values.brandId,
      geoTargetId: values.geoTargetId,
      languageCode: values.languageCode,
      country: values.country,
      workspaceId: values.workspaceId,
      status: "creating",
      projectId: null,
      reservationKey: values.reservationKey ?? null,
      createdAt: databaseNow(values.now),
      updatedAt: databaseNow(values.now),
    })
    .onConflictDoNothing({ target: [markets.brandId, markets.geoTargetId, markets.languageCode] })
    .returning();
  return row;
}
