import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";
import type { MarketRow } from "./marketRow.ts";

/**
 * Deletes one market row, optionally only while it still has `expectedStatus` (a reservation being
 * rolled back must not delete a row another path already promoted). Undefined: nothing matched.
 */
export async function deleteMarketRow(
  db: DbExecutor,
  id: string,
  expectedStatus?: MarketRow["status"],
): Promise<MarketRow | undefined> {
  const [row] = await db
    .delete(markets)
    .where(expectedStatus ? and(eq(markets.id, id), eq(markets.status, expectedStatus)) : eq(markets.id, id))
    .returning();
  return row;
}
