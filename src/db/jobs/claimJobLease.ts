import { and, eq, isNull, lte, or, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

/**
 * Claims the job's lease: one guarded update that succeeds only while the record is IN_PROGRESS
 * and nobody holds a live lease. Counts the attempt. `undefined` = lost (another delivery holds
 * it, or the job is no longer in progress). Expiry is set and compared on the database's clock
 * (`now` is only ever a test's hand-driven time, docs/decisions/0023).
 */
export async function claimJobLease(
  db: DbExecutor,
  claim: { jobId: string; leaseToken: string; now: DatabaseTime; ttlMs: number },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      leaseToken: claim.leaseToken,
      leaseExpiresAt: databaseNowPlus(claim.now, claim.ttlMs),
      attempts: sql`${jobs.attempts} + 1`,
      updatedAt: databaseNow(claim.now),
    })
    .where(
      and(
        eq(jobs.id, claim.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        or(
          isNull(jobs.leaseToken),
          isNull(jobs.leaseExpiresAt),
          lte(jobs.leaseExpiresAt, databaseNow(claim.now)),
        ),
      ),
    )
    .returning();
  return row;
}
