import { and, eq, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationLocks } from "../schema.ts";

function prepareRelease(db: DbExecutor) {
  return db
    .delete(allocationLocks)
    .where(
      and(
        eq(allocationLocks.subWorkspaceId, sql.placeholder("subWorkspaceId")),
        eq(allocationLocks.holder, sql.placeholder("holder")),
        // This statement's own transaction commits without waiting for the WAL flush (see below).
        // set_config(…, true) is transaction-local, so nothing leaks into the pooled session.
        sql`set_config('synchronous_commit', 'off', true) is not null`,
      ),
    )
    .returning({ holder: allocationLocks.holder })
    .prepare("release_allocation_lock");
}

/** A named prepared statement per executor (see acquireAllocationLock.ts). */
const prepared = new WeakMap<DbExecutor, ReturnType<typeof prepareRelease>>();

/**
 * Releases a lease by its holder token only: a stale holder whose lease expired and was taken over
 * deletes nothing. `false` = the lease was no longer ours.
 *
 * Committed asynchronously (synchronous_commit off for this statement only): the delete is visible
 * to every other session at once, only its durability waits for the WAL writer. A release lost in
 * a database crash leaves a lease row that expires on its own within one TTL, the same as a holder
 * that crashed — waiters are delayed, mutual exclusion is untouched. Waiting for the flush cost
 * most of a lock section's wall time.
 */
export async function releaseAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string },
): Promise<boolean> {
  let statement = prepared.get(db);
  if (!statement) {
    statement = prepareRelease(db);
    prepared.set(db, statement);
  }
  const rows = await statement.execute({ subWorkspaceId: values.subWorkspaceId, holder: values.holder });
  return rows.length === 1;
}
