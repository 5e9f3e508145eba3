import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";

/** Whether a market row (ready, or a reservation that recorded it) tracks this upstream project. */
export async function isProjectTracked(db: DbExecutor, projectId: string): Promise<boolean> {
  const rows = await db
    .select({ id: markets.id })
    .from(markets)
    .where(eq(markets.projectId, projectId))
    .limit(1);
  return rows.length === 1;
}
