import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationPublishes } from "../schema.ts";

/**
 * Remembers that a publish was written into `subWorkspaceId` at `now` (an upsert that never moves
 * the time backwards, so a slow writer cannot shorten another's lag window).
 */
export async function recordPublish(
  db: DbExecutor,
  values: { subWorkspaceId: string; now: Date },
): Promise<void> {
  await db
    .insert(allocationPublishes)
    .values({ subWorkspaceId: values.subWorkspaceId, publishedAt: values.now })
    .onConflictDoUpdate({
      target: allocationPublishes.subWorkspaceId,
      set: { publishedAt: sql`greatest(${allocationPublishes.publishedAt}, excluded.published_at)` },
    });
}
