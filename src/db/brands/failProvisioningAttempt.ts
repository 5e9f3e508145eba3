import { and, eq } from "drizzle-orm";

import {
  provisioningErrorSentence,
  type ProvisioningFailureReason,
} from "../../domain/provisioningAttempt.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * T5: `pending` → `failed` with a fixed sentence, guarded by the attempt id. Used by the worker,
 * the reconciler (stale attempts) and producers whose enqueue failed. `undefined` = the attempt
 * already moved on (promoted, cancelled or replaced): the caller's view is stale.
 */
export async function failProvisioningAttempt(
  db: DbExecutor,
  input: { brandId: string; attemptId: string; reason: ProvisioningFailureReason; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({
      provisioningStatus: "failed",
      provisioningError: provisioningErrorSentence(input.reason),
      updatedAt: databaseNow(input.now),
    })
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
