import { lt, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationLocks } from "../schema.ts";

export type AllocationLockRow = typeof allocationLocks.$inferSelect;

/**
 * Takes a sub-workspace's allocation lease in one statement: insert it, or take over a row whose
 * lease has expired (its holder crashed or stalled). `undefined` = someone else holds a live lease,
 * a lost race the caller waits on — never an exception. Expiry compares with the caller's clock.
 */
export async function acquireAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string; now: Date; ttlMs: number },
): Promise<AllocationLockRow | undefined> {
  const expiresAt = new Date(values.now.getTime() + values.ttlMs);
  const [row] = await db
    .insert(allocationLocks)
    .values({ subWorkspaceId: values.subWorkspaceId, holder: values.holder, expiresAt })
    .onConflictDoUpdate({
      target: allocationLocks.subWorkspaceId,
      set: { holder: sql`excluded.holder`, expiresAt: sql`excluded.expires_at` },
      setWhere: lt(allocationLocks.expiresAt, values.now),
    })
    .returning();
  return row;
}
