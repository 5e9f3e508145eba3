import { inArray } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketModels } from "../schema.ts";
import type { KnownModelsRow } from "./knownModelsRow.ts";

/** The model sets Serenity knows for `marketIds` (a market without a row: not known). */
export async function findKnownModels(
  db: DbExecutor,
  marketIds: readonly string[],
): Promise<Map<string, KnownModelsRow>> {
  if (marketIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(marketModels)
    .where(inArray(marketModels.marketId, [...marketIds]));
  return new Map(rows.map((row) => [row.marketId, row]));
}
