import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import { AT, clockCte } from "../resourceObservations/foldedEntry.ts";

/**
 * A publish recorded before its call was answered: its window starts again now (the database's
 * clock), since upstream's `used` lags from when it took the publish, which may be later than the
 * record. Never moves the time backwards. On the sub-workspace's entry of the resources record (the
 * fold, docs/decisions/0046, 0048).
 */
export async function extendPublishWindow(
  db: DbExecutor,
  subWorkspaceId: string,
  now: DatabaseTime,
): Promise<void> {
  await db.execute(sql`
    with ${clockCte(now)}
    update resource_observations set published_at = greatest(published_at, ${AT})
    where workspace_id = ${subWorkspaceId} and published_at is not null
  `);
}
