import { lt, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import { allocationLocks } from "../schema.ts";

function prepareAcquire(db: DbExecutor) {
  // The database's clock unless a test passes its hand-driven time (databaseTime.ts): the same
  // expression as databaseNow(), written with placeholders for the prepared statement.
  const now = sql`coalesce(${sql.placeholder("now")}::timestamptz, date_trunc('milliseconds', clock_timestamp()))`;
  return (
    db
      .insert(allocationLocks)
      .values({
        subWorkspaceId: sql.placeholder("subWorkspaceId"),
        holder: sql.placeholder("holder"),
        expiresAt: sql`${now} + ${sql.placeholder("ttlMs")}::double precision * interval '1 millisecond'`,
      })
      .onConflictDoUpdate({
        target: allocationLocks.subWorkspaceId,
        set: { holder: sql`excluded.holder`, expiresAt: sql`excluded.expires_at` },
        setWhere: lt(allocationLocks.expiresAt, now),
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
 * lost race the caller waits on — never an exception. Expiry is set and compared on the database's
 * clock, never the caller's (docs/decisions/0023).
 *
 * Committed synchronously (unlike the release): a lease acknowledged but lost in a database crash
 * would let a second holder in while the first still works under it.
 */
export async function acquireAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string; now: DatabaseTime; ttlMs: number },
): Promise<boolean> {
  let statement = prepared.get(db);
  if (!statement) {
    statement = prepareAcquire(db);
    prepared.set(db, statement);
  }
  const rows = await statement.execute({
    subWorkspaceId: values.subWorkspaceId,
    holder: values.holder,
    ttlMs: values.ttlMs,
    now: values.now?.toISOString() ?? null,
  });
  return rows.length === 1;
}
