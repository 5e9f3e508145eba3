import { inArray } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketTags } from "../schema.ts";
import type { KnownTagRow } from "./knownTagRow.ts";

/** The tag ids Serenity knows for `marketIds`, grouped by market. */
export async function findKnownTags(
  db: DbExecutor,
  marketIds: readonly string[],
): Promise<Map<string, KnownTagRow[]>> {
  if (marketIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(marketTags)
    .where(inArray(marketTags.marketId, [...marketIds]));
  const byMarket = new Map<string, KnownTagRow[]>();
  for (const row of rows) byMarket.set(row.marketId, [...(byMarket.get(row.marketId) ?? []), row]);
  return byMarket;
}
