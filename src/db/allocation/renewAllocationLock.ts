import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationLocks } from "../schema.ts";

/**
 * Extends a held lease (the heartbeat). Guarded by the holder token, so a holder whose lease was
 * already taken over cannot extend someone else's: `false` = the lease is lost.
 */
export async function renewAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string; now: Date; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .update(allocationLocks)
    .set({ expiresAt: new Date(values.now.getTime() + values.ttlMs) })
    .where(
      and(
        eq(allocationLocks.subWorkspaceId, values.subWorkspaceId),
        eq(allocationLocks.holder, values.holder),
      ),
    )
    .returning({ holder: allocationLocks.holder });
  return rows.length === 1;
}
