import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { type AnnouncedEntry, parentEntry } from "./foldedEntry.ts";

/**
 * The call `beginAnnouncement` announced was answered (applied, refused or lost): the entry's
 * version moves on again, so what a call sent before this answer taught is not recorded, and one
 * fewer is in flight. A sub-workspace's end reaches every entry of the workspace, as the writes
 * that know only the workspace do (foldedEntry.ts): the readers go by the one published into last.
 */
export async function endAnnouncement(db: DbExecutor, on: AnnouncedEntry): Promise<void> {
  const entries =
    on.workspaceId === undefined
      ? sql`(org_id, workspace_id) in (${parentEntry(on.orgId)})`
      : sql`workspace_id = ${on.workspaceId}`;
  await db.execute(sql`
    update resource_observations
    set version = version + 1, announced = greatest(0, announced - 1)
    where ${entries}
  `);
}
