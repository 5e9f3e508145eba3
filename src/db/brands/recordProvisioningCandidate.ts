import { and, eq, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * T2: the attempt's candidate workspace, recorded once. Guarded by the attempt id, `pending`, and
 * no candidate yet — the mutex between duplicate deliveries of the first hop. `undefined` = lost:
 * the caller cleans up what it created itself and stands down.
 */
export async function recordProvisioningCandidate(
  db: DbExecutor,
  input: { brandId: string; attemptId: string; candidateWorkspaceId: string; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({ provisioningCandidateWorkspaceId: input.candidateWorkspaceId, updatedAt: databaseNow(input.now) })
    .where(
      and(
        eq(brands.id, input.brandId),
        eq(brands.provisioningAttemptId, input.attemptId),
        eq(brands.provisioningStatus, "pending"),
        isNull(brands.provisioningCandidateWorkspaceId),
      ),
    )
    .returning();
  return row;
}
