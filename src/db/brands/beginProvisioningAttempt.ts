import { and, eq, inArray, isNull, or } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * T1 (spec/provisioning.md §4): `null`/`ready`/`failed` → `pending` with a new attempt id; the
 * previous attempt's job id, candidate and error are cleared. `undefined` = lost: another attempt
 * is live (the producer answers 409 `semrushProvisioningInProgress`).
 */
export async function beginProvisioningAttempt(
  db: DbExecutor,
  input: { brandId: string; attemptId: string; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({
      provisioningStatus: "pending",
      provisioningAttemptId: input.attemptId,
      provisioningJobId: null,
      provisioningCandidateWorkspaceId: null,
      provisioningError: null,
      updatedAt: databaseNow(input.now),
    })
    .where(
      and(
        eq(brands.id, input.brandId),
        or(isNull(brands.provisioningStatus), inArray(brands.provisioningStatus, ["ready", "failed"])),
      ),
    )
    .returning();
  return row;
}
