import { and, eq, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";

/**
 * Records the requeue or chain successor, guarded by the lease token and "no successor yet" (a
 * job hands off at most once). Run in the same transaction as the successor's insert.
 */
export async function linkNextJob(
  db: DbExecutor,
  link: { jobId: string; leaseToken: string; nextJobId: string; now: DatabaseTime },
): Promise<boolean> {
  const rows = await db
    .update(jobs)
    .set({ nextJobId: link.nextJobId, updatedAt: databaseNow(link.now) })
    .where(
      and(
        eq(jobs.id, link.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        eq(jobs.leaseToken, link.leaseToken),
        isNull(jobs.nextJobId),
      ),
    )
    .returning({ id: jobs.id });
  return rows.length > 0;
}
