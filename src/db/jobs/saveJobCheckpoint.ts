import { and, eq, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";

/**
 * Merges `patch` into the metadata (top-level keys), guarded by the lease token: a stale delivery
 * cannot write. Returns the new metadata, or `undefined` when the lease was lost.
 */
export async function saveJobCheckpoint(
  db: DbExecutor,
  checkpoint: { jobId: string; leaseToken: string; patch: Record<string, unknown>; now: DatabaseTime },
): Promise<Record<string, unknown> | undefined> {
  const [row] = await db
    .update(jobs)
    .set({
      metadata: sql`${jobs.metadata} || ${JSON.stringify(checkpoint.patch)}::jsonb`,
      updatedAt: databaseNow(checkpoint.now),
    })
    .where(
      and(
        eq(jobs.id, checkpoint.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        eq(jobs.leaseToken, checkpoint.leaseToken),
      ),
    )
    .returning({ metadata: jobs.metadata });
  return row?.metadata;
}
