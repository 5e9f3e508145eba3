import { and, eq, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRecordError, JobRow } from "./jobRow.ts";

/**
 * IN_PROGRESS → FAILED for a record nobody holds (an unknown type is failed without ever being
 * leased). Guarded on "no lease", so it can never overwrite a delivery that is working on it.
 */
export async function failUnleasedJob(
  db: DbExecutor,
  failure: { jobId: string; error: JobRecordError; now: DatabaseTime },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({ status: "FAILED", error: failure.error, updatedAt: databaseNow(failure.now) })
    .where(and(eq(jobs.id, failure.jobId), eq(jobs.status, "IN_PROGRESS"), isNull(jobs.leaseToken)))
    .returning();
  return row;
}
