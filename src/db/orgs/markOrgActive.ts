import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { orgActivity } from "../schema.ts";

/** A mark younger than this is not written again (the activity is known to within a minute). */
export const ORG_ACTIVITY_RESOLUTION_MS = 60_000;

/**
 * Records that the org was used now (docs/decisions/0042), in one statement that writes only when
 * the last mark is at least ORG_ACTIVITY_RESOLUTION_MS old, on the database's clock. `false` = a
 * recent mark stood (another process wrote it), never an error.
 */
export async function markOrgActive(
  db: DbExecutor,
  values: { orgId: string; now: DatabaseTime },
): Promise<boolean> {
  const rows = await db
    .insert(orgActivity)
    .values({ orgId: values.orgId, activeAt: databaseNow(values.now) })
    .onConflictDoUpdate({
      target: orgActivity.orgId,
      set: { activeAt: sql`excluded.active_at` },
      setWhere: sql`${orgActivity.activeAt} <= ${databaseNowPlus(values.now, -ORG_ACTIVITY_RESOLUTION_MS)}`,
    })
    .returning({ orgId: orgActivity.orgId });
  return rows.length === 1;
}
