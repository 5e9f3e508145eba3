import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";

export interface ModelSetChanges {
  /** How many times a model add began or ended on the sub-workspace (0: never). */
  changes: number;
  /** Whether a model add is in flight (its hold, on the database's clock, not yet over). */
  inFlight: boolean;
}

/** Where `subWorkspaceId`'s model set changes stand. */
export async function readModelSetChanges(
  db: DbExecutor,
  subWorkspaceId: string,
  now: DatabaseTime,
): Promise<ModelSetChanges> {
  const result = await db.execute<{ changes: number; in_flight: boolean }>(sql`
    select changes, (in_flight > 0 and hold_until > ${databaseNowPlus(now, 0)}) as in_flight
    from model_set_changes where sub_workspace_id = ${subWorkspaceId}
  `);
  const row = result.rows[0];
  return row
    ? { changes: Number(row.changes), inFlight: Boolean(row.in_flight) }
    : { changes: 0, inFlight: false };
}
