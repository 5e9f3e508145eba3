import { and, eq, gt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";

/**
 * Whether the job record moved within the last `withinMs` on the database's clock: its
 * `updated_at` was stamped by whichever process wrote it last, so its age is never read off this
 * process's clock (docs/decisions/0022).
 */
export async function isJobUpdatedWithin(
  db: DbExecutor,
  query: { jobId: string; withinMs: number; now: DatabaseTime },
): Promise<boolean> {
  const [row] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.id, query.jobId), gt(jobs.updatedAt, databaseNowPlus(query.now, -query.withinMs))))
    .limit(1);
  return row !== undefined;
}
