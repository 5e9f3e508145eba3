import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";
import type { MarketRow, MarketSlice } from "./marketRow.ts";

/** One slice of a brand, whatever its status. */
export async function findMarket(db: DbExecutor, slice: MarketSlice): Promise<MarketRow | undefined> {
  const [row] = await db
    .select()
    .from(markets)
    .where(
      and(
        eq(markets.brandId, slice.brandId),
        eq(markets.geoTargetId, slice.geoTargetId),
        eq(markets.languageCode, slice.languageCode),
      ),
    )
    .limit(1);
  return row;
}
