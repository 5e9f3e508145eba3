import { and, eq, isNotNull, isNull, lt, or } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { jobs } from "../schema.ts";
import type { JobRecordError, JobRow } from "./jobRow.ts";

/**
 * IN_PROGRESS → FAILED for a stalled record, guarded by the stall predicate itself, so a record
 * that a delivery claimed in the meantime is left alone. Clears the lease.
 */
export async function failStalledJob(
  db: DbExecutor,
  failure: { jobId: string; stalledBefore: Date; error: JobRecordError; now: Date },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      status: "FAILED",
      error: failure.error,
      leaseToken: null,
      leaseExpiresAt: null,
      updatedAt: failure.now,
    })
    .where(
      and(
        eq(jobs.id, failure.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        or(
          and(isNotNull(jobs.leaseExpiresAt), lt(jobs.leaseExpiresAt, failure.stalledBefore)),
          and(isNull(jobs.leaseToken), lt(jobs.updatedAt, failure.stalledBefore)),
        ),
      ),
    )
    .returning();
  return row;
}
