import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";
import type { MarketRow } from "./marketRow.ts";

/** `creating` → `ready` with its project. 0 rows: the reservation was reclaimed meanwhile (lost race). */
export async function markMarketReady(
  db: DbExecutor,
  values: { id: string; projectId: string; now: Date },
): Promise<MarketRow | undefined> {
  const [row] = await db
    .update(markets)
    .set({ status: "ready", projectId: values.projectId, updatedAt: values.now })
    .where(and(eq(markets.id, values.id), eq(markets.status, "creating")))
    .returning();
  return row;
}
