import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRow, JobStatus } from "./jobRow.ts";

/**
 * Re-arms an existing record under the same id as a fresh IN_PROGRESS job: new metadata (its
 * checkpoints dropped), new credential and owner, no lease, no result or error, attempts from 0.
 * Compare-and-set on the status and `updatedAt` the caller read: `undefined` means the record
 * moved meanwhile (the caller re-reads). Used by a producer with a deterministic job id to recycle
 * a stale IN_PROGRESS job or replace a terminal one.
 */
export async function rearmJob(
  db: DbExecutor,
  rearm: {
    jobId: string;
    expected: { status: JobStatus; updatedAt: Date };
    metadata: Record<string, unknown>;
    credentialId: string | null;
    createdBy: string | null;
    /** The trace of the work that re-arms it (null: tracing off). */
    traceContext?: { traceparent: string; tracestate?: string } | null;
    now: DatabaseTime;
  },
): Promise<JobRow | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      status: "IN_PROGRESS",
      metadata: rearm.metadata,
      credentialId: rearm.credentialId,
      createdBy: rearm.createdBy,
      traceContext: rearm.traceContext ?? null,
      leaseToken: null,
      leaseExpiresAt: null,
      attempts: 0,
      result: null,
      error: null,
      nextJobId: null,
      createdAt: databaseNow(rearm.now),
      updatedAt: databaseNow(rearm.now),
    })
    .where(
      and(
        eq(jobs.id, rearm.jobId),
        eq(jobs.status, rearm.expected.status),
        eq(jobs.updatedAt, rearm.expected.updatedAt),
      ),
    )
    .returning();
  return row;
}
