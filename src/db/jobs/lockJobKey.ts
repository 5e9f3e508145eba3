import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/**
 * A transaction-scoped advisory lock on a job id: producers that race on one deterministic id
 * (generation, spec/generation.md §2 step 3) decide reuse / recycle / replace one at a time. The
 * lock is released at commit or rollback; the job runner never takes it (its writes are fenced by
 * the lease token instead).
 */
export async function lockJobKey(tx: DbExecutor, jobId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`job:${jobId}`}, 0))`);
}
