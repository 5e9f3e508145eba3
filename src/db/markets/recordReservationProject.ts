import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { markets } from "../schema.ts";
import type { MarketRow } from "./marketRow.ts";

/**
 * Notes the upstream project on a reservation as soon as it exists, so a reservation abandoned
 * by a crash still names the project to clean up. 0 rows: the reservation was reclaimed meanwhile.
 */
export async function recordReservationProject(
  db: DbExecutor,
  values: { id: string; projectId: string; now: DatabaseTime },
): Promise<MarketRow | undefined> {
  const [row] = await db
    .update(markets)
    .set({ projectId: values.projectId, updatedAt: databaseNow(values.now) })
    .where(and(eq(markets.id, values.id), eq(markets.status, "creating")))
    .returning();
  return row;
}
