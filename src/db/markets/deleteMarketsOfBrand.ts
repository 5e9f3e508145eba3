import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";

/**
 * Removes every market row of a brand (deactivate: the projects behind them were deleted
 * upstream). Returns how many rows went.
 */
export async function deleteMarketsOfBrand(db: DbExecutor, brandId: string): Promise<number> {
  const rows = await db.delete(markets).where(eq(markets.brandId, brandId)).returning({ id: markets.id });
  return rows.length;
}
