import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { allocationLocks } from "../schema.ts";

/**
 * Extends a held lease (the heartbeat). Guarded by the holder token, so a holder whose lease was
 * already taken over cannot extend someone else's: `false` = the lease is lost. The new expiry is
 * `ttlMs` from the database's clock.
 */
export async function renewAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string; now: DatabaseTime; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .update(allocationLocks)
    .set({ expiresAt: databaseNowPlus(values.now, values.ttlMs) })
    .where(
      and(
        eq(allocationLocks.subWorkspaceId, values.subWorkspaceId),
        eq(allocationLocks.holder, values.holder),
      ),
    )
    .returning({ holder: allocationLocks.holder });
  return rows.length === 1;
}
