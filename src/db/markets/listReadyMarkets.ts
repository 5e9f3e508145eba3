import { and, asc, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";
import type { MarketRow } from "./marketRow.ts";

/** A brand's ready markets, oldest first (reservations still being created are not markets yet). */
export async function listReadyMarkets(db: DbExecutor, brandId: string): Promise<MarketRow[]> {
  return db
    .select()
    .from(markets)
    .where(and(eq(markets.brandId, brandId), eq(markets.status, "ready")))
    .orderBy(asc(markets.createdAt), asc(markets.geoTargetId), asc(markets.languageCode));
}
