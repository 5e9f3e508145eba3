import { and, eq, gt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";

/**
 * Extends the lease of the delivery holding `leaseToken` to `now + ttlMs`, on the database's clock.
 * Only a lease still live is renewed: one that lapsed may already be handed on (the reconciler's
 * redelivery), so a holder coming back after a partition cannot revive it. False = the lease is
 * gone (lapsed, taken over, released, or the job is no longer in progress).
 */
export async function renewJobLease(
  db: DbExecutor,
  lease: { jobId: string; leaseToken: string; now: DatabaseTime; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .update(jobs)
    .set({ leaseExpiresAt: databaseNowPlus(lease.now, lease.ttlMs) })
    .where(
      and(
        eq(jobs.id, lease.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        eq(jobs.leaseToken, lease.leaseToken),
        gt(jobs.leaseExpiresAt, databaseNow(lease.now)),
      ),
    )
    .returning({ id: jobs.id });
  return rows.length > 0;
}
