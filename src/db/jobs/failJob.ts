import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRecordError, JobRow } from "./jobRow.ts";

/** IN_PROGRESS → FAILED by compare-and-set on the lease token; clears the lease. */
export async function failJob(
  db: DbExecutor,
  failure: { jobId: string; leaseToken: string; error: JobRecordError; now: DatabaseTime },
): Promise<JobRow | undefined> {
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
        eq(jobs.leaseToken, failure.leaseToken),
      ),
    )
    .returning();
  return row;
}
