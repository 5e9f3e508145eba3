import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNowPlus } from "../databaseTime.ts";
import type { PublishWindow } from "./findLastPublishes.ts";

/**
 * A delete was written into `subWorkspaceId`: when the window of its last publish is still open (on
 * the database's clock), that publish's bound may now be far above the real `used` — still an
 * upper bound, since a delete only lowers usage, but no longer a figure to plan a top-up from
 * (docs/decisions/0030, addendum). One guarded update; `false` when nothing changed: no open window
 * (the next publish starts from a read that no longer lags), or already loose.
 */
export async function loosenPublishBound(
  db: DbExecutor,
  subWorkspaceId: string,
  window: PublishWindow,
): Promise<boolean> {
  const result = await db.execute(sql`
    update allocation_publishes set bound_loose = true
    where sub_workspace_id = ${subWorkspaceId}
      and published_at > ${databaseNowPlus(window.now, -window.publishLagMs)}
      and not bound_loose
    returning sub_workspace_id
  `);
  return result.rows.length > 0;
}
