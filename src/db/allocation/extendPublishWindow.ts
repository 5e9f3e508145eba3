import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";

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
    with clock as (select ${databaseNow(now)} as at),
    publish as (
      update allocation_publishes set published_at = greatest(published_at, (select at from clock))
      where sub_workspace_id = ${subWorkspaceId}
      returning 1
    )
    update resource_observations set published_at = greatest(published_at, (select at from clock))
    where workspace_id = ${subWorkspaceId} and published_at is not null and exists (select 1 from publish)
  `);
}
