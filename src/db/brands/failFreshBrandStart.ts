import { eq } from "drizzle-orm";

import {
  provisioningErrorSentence,
  type ProvisioningFailureReason,
} from "../../domain/provisioningAttempt.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * T7: the create-brand producer's fallback when T1 itself threw for the row it inserted in the
 * same request: the brand is marked `failed` so it does not look flat (and writable into the
 * org's parent). Guarded by the brand id only — no other actor can know this row yet — so callers
 * must never use it for a brand they did not just insert.
 */
export async function failFreshBrandStart(
  db: DbExecutor,
  input: { brandId: string; reason?: ProvisioningFailureReason; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({
      provisioningStatus: "failed",
      provisioningError: provisioningErrorSentence(input.reason ?? "couldNotStart"),
      updatedAt: databaseNow(input.now),
    })
    .where(eq(brands.id, input.brandId))
    .returning();
  return row;
}
