import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { type AnnouncedEntry, entryOf } from "./foldedEntry.ts";

/**
 * The call `beginAnnouncement` announced was answered (applied, refused or lost): the entry's
 * version moves on again, so what a call sent before this answer taught is not recorded, and one
 * fewer is in flight.
 */
export async function endAnnouncement(db: DbExecutor, on: AnnouncedEntry): Promise<void> {
  await db.execute(sql`
    update resource_observations
    set version = version + 1, announced = greatest(0, announced - 1)
    where (org_id, workspace_id) in (${entryOf(on)})
  `);
}
