import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";
import type { MarketRow } from "./marketRow.ts";

/** Every market row of a brand, reservations included (a brand's delete removes them all). */
export async function listMarketsOfBrand(db: DbExecutor, brandId: string): Promise<MarketRow[]> {
  return db.select().from(markets).where(eq(markets.brandId, brandId));
}
