import { and, eq, isNull, lt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";

/**
 * Drops a market reservation the upstream reconciler has just finished with — a failed rollback
 * whose project it deleted, or an abandoned reservation with no project (`projectId: null`): only
 * while it is still the same `creating` row with that project (or none) and untouched since
 * `updatedBefore` — a redelivery that reclaimed it meanwhile keeps it. `false` = a lost race.
 */
export async function dropStaleReservation(
  db: DbExecutor,
  values: { id: string; projectId: string | null; updatedBefore: Date },
): Promise<boolean> {
  const rows = await db
    .delete(markets)
    .where(
      and(
        eq(markets.id, values.id),
        eq(markets.status, "creating"),
        values.projectId === null ? isNull(markets.projectId) : eq(markets.projectId, values.projectId),
        lt(markets.updatedAt, values.updatedBefore),
      ),
    )
    .returning({ id: markets.id });
  return rows.length === 1;
}
