import { lt, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationLocks } from "../schema.ts";

function prepareAcquire(db: DbExecutor) {
  return (
    db
      .insert(allocationLocks)
      .values({
        subWorkspaceId: sql.placeholder("subWorkspaceId"),
        holder: sql.placeholder("holder"),
        expiresAt: sql.placeholder("expiresAt"),
      })
      .onConflictDoUpdate({
        target: allocationLocks.subWorkspaceId,
        set: { holder: sql`excluded.holder`, expiresAt: sql`excluded.expires_at` },
        setWhere: lt(allocationLocks.expiresAt, sql.placeholder("now")),
      })
      // Only whether a row came back matters: no timestamp to parse on every acquire.
      .returning({ subWorkspaceId: allocationLocks.subWorkspaceId })
      .prepare("acquire_allocation_lock")
  );
}

/**
 * A named prepared statement per executor: every guarded request runs this statement, and building
 * it with the query builder each time cost about as much CPU as the round trip (docs/benchmarks.md,
 * "Allocation guard overhead"). The server keeps one parsed plan per connection.
 */
const prepared = new WeakMap<DbExecutor, ReturnType<typeof prepareAcquire>>();

/**
 * Takes a sub-workspace's allocation lease in one statement: insert it, or take over a row whose
 * lease has expired (its holder crashed or stalled). `false` = someone else holds a live lease, a
 * lost race the caller waits on — never an exception. Expiry compares with the caller's clock.
 *
 * Committed synchronously (unlike the release): a lease acknowledged but lost in a database crash
 * would let a second holder in while the first still works under it.
 */
export async function acquireAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string; now: Date; ttlMs: number },
): Promise<boolean> {
  let statement = prepared.get(db);
  if (!statement) {
    statement = prepareAcquire(db);
    prepared.set(db, statement);
  }
  const rows = await statement.execute({
    subWorkspaceId: values.subWorkspaceId,
    holder: values.holder,
    expiresAt: new Date(values.now.getTime() + values.ttlMs),
    now: values.now.toISOString(),
  });
  return rows.length === 1;
}
