import { and, eq } from "drizzle-orm";

import { provisioningErrorSentence } from "../../domain/provisioningAttempt.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * T6: deactivate's first step. Any `pending` attempt of the brand → `failed` "Deactivated while
 * provisioning", whatever its attempt id, so a worker hop landing later can no longer promote
 * (T4 requires `pending`). `undefined` = nothing was pending, which is the common case.
 */
export async function cancelProvisioning(
  db: DbExecutor,
  input: { brandId: string; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({
      provisioningStatus: "failed",
      provisioningError: provisioningErrorSentence("deactivated"),
      updatedAt: databaseNow(input.now),
    })
    .where(and(eq(brands.id, input.brandId), eq(brands.provisioningStatus, "pending")))
    .returning();
  return row;
}
