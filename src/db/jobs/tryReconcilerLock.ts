import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/** Arbitrary but fixed: the advisory lock key of the job reconciler. */
const RECONCILER_LOCK_KEY = 0x5e7e_0001;

/**
 * Takes the reconciler's transaction-scoped advisory lock without waiting. Must run inside a
 * transaction: the lock is released at commit or rollback. `false` = another process is
 * reconciling right now.
 */
export async function tryReconcilerLock(tx: DbExecutor): Promise<boolean> {
  const result = await tx.execute<{ locked: boolean }>(
    sql`select pg_try_advisory_xact_lock(${RECONCILER_LOCK_KEY}) as locked`,
  );
  return result.rows[0]?.locked === true;
}
