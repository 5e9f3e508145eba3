import { and, eq, isNull, lte, or, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

/**
 * Claims the job's lease: one guarded update that succeeds only while the record is IN_PROGRESS
 * and nobody holds a live lease. Counts the attempt. `undefined` = lost (another delivery holds
 * it, or the job is no longer in progress).
 */
export async function claimJobLease(
  db: DbExecutor,
  claim: { jobId: string; leaseToken: string; now: Date; ttlMs: number },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      leaseToken: claim.leaseToken,
      leaseExpiresAt: new Date(claim.now.getTime() + claim.ttlMs),
      attempts: sql`${jobs.attempts} + 1`,
      updatedAt: claim.now,
    })
    .where(
      and(
        eq(jobs.id, claim.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        or(isNull(jobs.leaseToken), isNull(jobs.leaseExpiresAt), lte(jobs.leaseExpiresAt, claim.now)),
      ),
    )
    .returning();
  return row;
}
