import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationLocks } from "../schema.ts";

/**
 * Releases a lease by its holder token only: a stale holder whose lease expired and was taken over
 * deletes nothing. `false` = the lease was no longer ours.
 */
export async function releaseAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string },
): Promise<boolean> {
  const rows = await db
    .delete(allocationLocks)
    .where(
      and(
        eq(allocationLocks.subWorkspaceId, values.subWorkspaceId),
        eq(allocationLocks.holder, values.holder),
      ),
    )
    .returning({ holder: allocationLocks.holder });
  return rows.length === 1;
}
