import { and, eq, lt } from "drizzle-orm";

import { provisioningErrorSentence } from "../../domain/provisioningAttempt.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * T5 "went stale", the reconciler's variant: guarded by the attempt id, `pending`, AND the row
 * still being untouched since `staleBefore` — a hop that refreshed the attempt (T2, T3) after the
 * reconciler read it wins, and its live attempt is left alone. `undefined` = lost.
 */
export async function failStaleProvisioningAttempt(
  db: DbExecutor,
  input: { brandId: string; attemptId: string; staleBefore: Date; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({
      provisioningStatus: "failed",
      provisioningError: provisioningErrorSentence("stale"),
      updatedAt: databaseNow(input.now),
    })
    .where(
      and(
        eq(brands.id, input.brandId),
        eq(brands.provisioningAttemptId, input.attemptId),
        eq(brands.provisioningStatus, "pending"),
        lt(brands.updatedAt, input.staleBefore),
      ),
    )
    .returning();
  return row;
}
