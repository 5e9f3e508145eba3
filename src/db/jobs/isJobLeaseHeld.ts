import { and, eq, gt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { jobs } from "../schema.ts";

/**
 * Whether the delivery holding `leaseToken` still owns the job at `now`: the record is IN_PROGRESS,
 * carries this token and its lease has not expired by the database's clock. A read, not a write: it lets
 * a handler check before an irreversible step that is not itself fenced by the lease (a step
 * fenced only by another guard, such as a brand's attempt id). False after a release, a takeover
 * or an expiry.
 */
export async function isJobLeaseHeld(
  db: DbExecutor,
  lease: { jobId: string; leaseToken: string; now: DatabaseTime },
): Promise<boolean> {
  const [row] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        eq(jobs.id, lease.jobId),
        eq(jobs.status, "IN_PROGRESS"),
        eq(jobs.leaseToken, lease.leaseToken),
        gt(jobs.leaseExpiresAt, databaseNow(lease.now)),
      ),
    )
    .limit(1);
  return row !== undefined;
}
