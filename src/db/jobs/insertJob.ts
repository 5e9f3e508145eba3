import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

export interface NewJob {
  id: string;
  type: string;
  orgId: string;
  brandId: string | null;
  metadata: Record<string, unknown>;
  credentialId: string | null;
  createdBy: string | null;
  /** The root of the lineage when this record is a requeue or chain successor. */
  rootJobId?: string | null;
  /** The W3C trace context its deliveries continue (null: tracing off). */
  traceContext?: { traceparent: string; tracestate?: string } | null;
  now: DatabaseTime;
}

/** A new IN_PROGRESS record; `undefined` when the id already exists (the caller decides). */
export async function insertJob(db: DbExecutor, job: NewJob): Promise<JobRow | undefined> {
  const [row] = await db
    .insert(jobs)
    .values({
      id: job.id,
      type: job.type,
      orgId: job.orgId,
      brandId: job.brandId,
      status: "IN_PROGRESS",
      metadata: job.metadata,
      credentialId: job.credentialId,
      createdBy: job.createdBy,
      rootJobId: job.rootJobId ?? null,
      traceContext: job.traceContext ?? null,
      createdAt: databaseNow(job.now),
      updatedAt: databaseNow(job.now),
    })
    .onConflictDoNothing({ target: jobs.id })
    .returning();
  return row;
}
