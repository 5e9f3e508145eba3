import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import {
  announcementBegins,
  clockCte,
  upsertEntry,
  workspaceEntry,
} from "../resourceObservations/foldedEntry.ts";

/**
 * A model is about to be added to a project of `subWorkspaceId` (docs/decisions/0030, addendum):
 * announced on the sub-workspace's entry of the resources record (the fold, docs/decisions/0046,
 * 0048), whose version moves on, the change in flight until `endModelSetChange`, or for `holdMs`
 * on the database's clock when that is never written.
 */
export async function beginModelSetChange(
  db: DbExecutor,
  { orgId, subWorkspaceId }: { orgId: string; subWorkspaceId: string },
  window: { now: DatabaseTime; holdMs: number },
): Promise<void> {
  await db.execute(sql`
    with ${clockCte(window.now)}
    ${upsertEntry(workspaceEntry(orgId, subWorkspaceId), announcementBegins(window.holdMs))}
  `);
}
