import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { atPlus, clockCte } from "../resourceObservations/foldedEntry.ts";
import type { PublishWindow } from "./findLastPublishes.ts";

/**
 * A delete was written into `subWorkspaceId`: when the window of its last publish is still open (on
 * the database's clock), that publish's bound may now be far above the real `used` — still an
 * upper bound, since a delete only lowers usage, but no longer a figure to plan a top-up from
 * (docs/decisions/0030, addendum). One guarded update; `false` when nothing changed: no open window
 * (the next publish starts from a read that no longer lags), or already loose — as the
 * sub-workspace's entry of the resources record says (the fold, docs/decisions/0047, 0048).
 */
export async function loosenPublishBound(
  db: DbExecutor,
  subWorkspaceId: string,
  window: PublishWindow,
): Promise<boolean> {
  const result = await db.execute<{ loosened: boolean }>(sql`
    with ${clockCte(window.now)},
    entry as (
      update resource_observations set bound_loose = true
      where workspace_id = ${subWorkspaceId}
        and published_at > ${atPlus(-window.publishLagMs)}
        and not bound_loose
      returning 1
    )
    select exists (select 1 from entry) as loosened
  `);
  return result.rows[0]?.loosened === true;
}
