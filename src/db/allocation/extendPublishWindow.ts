import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";

/**
 * A publish recorded before its call was answered: its window starts again now (the database's
 * clock), since upstream's `used` lags from when it took the publish, which may be later than the
 * record. Never moves the time backwards.
 */
export async function extendPublishWindow(
  db: DbExecutor,
  subWorkspaceId: string,
  now: DatabaseTime,
): Promise<void> {
  await db.execute(sql`
    update allocation_publishes set published_at = greatest(published_at, ${databaseNow(now)})
    where sub_workspace_id = ${subWorkspaceId}
  `);
}
