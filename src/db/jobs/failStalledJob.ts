import { and, eq, isNotNull, isNull, lt, or } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRecordError, JobRow } from "./jobRow.ts";

/**
 * IN_PROGRESS → FAILED for a stalled record, guarded by the stall predicate itself, so a record
 * that a delivery claimed in the meantime is left alone. Clears the lease. Stalled means
 * `stallGraceMs` past, on the database's clock (see findStalledJobs).
 */
export async function failStalledJob(
  db: DbExecutor,
  failure: { jobId: string; stallGraceMs: number; error: JobRecordError; now: DatabaseTime },
): Promise<JobRow | undefined> {
  const stalledBefore = databaseNowPlus(failure.now, -failure.stallGraceMs);
  const [row] = await db
    .update(jobs)
    .set({
      status: "FAILED",
      error: failure.error,
      leaseToken: null,
      leaseExpiresAt: null,
      updatedAt: databaseNow(failure.now),
    })
    .where(
      and(
        eq(jobs.id, failure.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        or(
          and(isNotNull(jobs.leaseExpiresAt), lt(jobs.leaseExpiresAt, stalledBefore)),
          and(isNull(jobs.leaseToken), lt(jobs.updatedAt, stalledBefore)),
        ),
      ),
    )
    .returning();
  return row;
}
