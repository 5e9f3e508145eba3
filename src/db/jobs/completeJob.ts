import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

/** IN_PROGRESS → COMPLETED by compare-and-set on the lease token; clears the lease. */
export async function completeJob(
  db: DbExecutor,
  done: { jobId: string; leaseToken: string; result: Record<string, unknown>; now: DatabaseTime },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      status: "COMPLETED",
      result: done.result,
      error: null,
      leaseToken: null,
      leaseExpiresAt: null,
      updatedAt: databaseNow(done.now),
    })
    .where(and(eq(jobs.id, done.jobId), eq(jobs.status, "IN_PROGRESS"), eq(jobs.leaseToken, done.leaseToken)))
    .returning();
  return row;
}
