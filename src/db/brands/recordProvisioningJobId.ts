import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * T3: the job currently carrying the attempt (after the producer's enqueue, or a worker's
 * requeue). Guarded by the attempt id and `pending`. Best effort for callers: `undefined` means
 * the attempt moved on, which never fails it. Refreshing `updatedAt` also marks the attempt alive
 * for the staleness judgement.
 */
export async function recordProvisioningJobId(
  db: DbExecutor,
  input: { brandId: string; attemptId: string; jobId: string; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({ provisioningJobId: input.jobId, updatedAt: databaseNow(input.now) })
    .where(
      and(
        eq(brands.id, input.brandId),
        eq(brands.provisioningAttemptId, input.attemptId),
        eq(brands.provisioningStatus, "pending"),
      ),
    )
    .returning();
  return row;
}
