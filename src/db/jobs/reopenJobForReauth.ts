import { and, eq, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

/**
 * FAILED with NEEDS_REAUTH → IN_PROGRESS with a fresh credential: the compare-and-set of a reauth.
 * The attempt budget starts over (the failure was the user's expired sign-in, not the work).
 * Checkpoints in the metadata are kept, so the job resumes where it stopped.
 */
export async function reopenJobForReauth(
  db: DbExecutor,
  reopen: { jobId: string; credentialId: string; now: DatabaseTime },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      status: "IN_PROGRESS",
      credentialId: reopen.credentialId,
      error: null,
      result: null,
      leaseToken: null,
      leaseExpiresAt: null,
      attempts: 0,
      updatedAt: databaseNow(reopen.now),
    })
    .where(
      and(eq(jobs.id, reopen.jobId), eq(jobs.status, "FAILED"), sql`${jobs.error}->>'code' = 'NEEDS_REAUTH'`),
    )
    .returning();
  return row;
}
