import { and, eq, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

/**
 * Gives the lease back (the record stays IN_PROGRESS) so the next delivery can claim it at once.
 * `refundAttempt` is for a shutdown that interrupted the work: that try does not count.
 */
export async function releaseJobLease(
  db: DbExecutor,
  release: { jobId: string; leaseToken: string; now: DatabaseTime; refundAttempt?: boolean },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      leaseToken: null,
      leaseExpiresAt: null,
      updatedAt: databaseNow(release.now),
      ...(release.refundAttempt ? { attempts: sql`greatest(${jobs.attempts} - 1, 0)` } : {}),
    })
    .where(
      and(
        eq(jobs.id, release.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        eq(jobs.leaseToken, release.leaseToken),
      ),
    )
    .returning();
  return row;
}
