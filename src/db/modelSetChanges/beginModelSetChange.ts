import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import {
  announcementBegins,
  AT,
  atPlus,
  clockCte,
  upsertEntry,
  workspaceEntry,
} from "../resourceObservations/foldedEntry.ts";

/**
 * A model is about to be added to a project of `subWorkspaceId` (docs/decisions/0030, addendum):
 * `changes` moves on and the change is in flight until `endModelSetChange`, or for `holdMs` on the
 * database's clock when that is never written. One statement; the sub-workspace's entry of the
 * resources record is announced on too (the fold, docs/decisions/0046).
 */
export async function beginModelSetChange(
  db: DbExecutor,
  { orgId, subWorkspaceId }: { orgId: string; subWorkspaceId: string },
  window: { now: DatabaseTime; holdMs: number },
): Promise<void> {
  await db.execute(sql`
    with ${clockCte(window.now)},
    changed as (
      insert into model_set_changes as c (sub_workspace_id, changes, in_flight, hold_until)
      values (${subWorkspaceId}, 1, 1, ${atPlus(window.holdMs)})
      on conflict (sub_workspace_id) do update set
        changes = c.changes + 1,
        -- An add whose end was never written stops counting once its hold is over.
        in_flight = case when c.hold_until > ${AT} then c.in_flight + 1 else 1 end,
        hold_until = greatest(c.hold_until, excluded.hold_until)
      returning 1
    )
    ${upsertEntry(workspaceEntry(orgId, subWorkspaceId), announcementBegins(window.holdMs), sql`exists (select 1 from changed)`)}
  `);
}
