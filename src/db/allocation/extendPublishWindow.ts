import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import { after, AT, clockCte } from "../resourceObservations/foldedEntry.ts";

/**
 * A publish recorded before its call was answered: its window starts again now (the database's
 * clock), since upstream's `used` lags from when it took the publish, which may be later than the
 * record. Never moves the time backwards. On `allocation_publishes` and on the sub-workspace's entry
 * of the resources record (the fold, docs/decisions/0046).
 */
export async function extendPublishWindow(
  db: DbExecutor,
  subWorkspaceId: string,
  now: DatabaseTime,
): Promise<void> {
  await db.execute(sql`
    with ${clockCte(now)},
    entry as (
      update resource_observations set published_at = greatest(published_at, ${AT})
      where workspace_id = ${subWorkspaceId} and published_at is not null
      returning 1
    )
    update allocation_publishes set published_at = greatest(published_at, ${AT})
    where sub_workspace_id = ${subWorkspaceId} and ${after("entry")}
  `);
}
