import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";
import { isSubWorkspaceUniqueViolation } from "./subWorkspaceUniqueViolation.ts";

export type PromoteOutcome =
  | { outcome: "promoted"; brand: BrandRow }
  /** The compare-and-set lost: another attempt, a cancel, a deleted brand, or no candidate. */
  | { outcome: "lost" }
  /** The candidate is already another brand's canonical pointer (two attempts adopted one workspace). */
  | { outcome: "superseded" };

/**
 * T4: `pending` → `ready`. The candidate becomes the canonical `subWorkspaceId` and the brand
 * turns `active`, in one statement guarded by the attempt id, `pending`, a recorded candidate and
 * a live brand (`pending` or `active`; never a deleted one).
 *
 * The UNIQUE pointer is the last line of defence: a violation is a result, not an exception. The
 * statement runs in its own transaction (a savepoint when `db` is already a transaction) so the
 * violation does not poison a caller's enclosing transaction.
 */
export async function promoteProvisioningReady(
  db: DbExecutor,
  input: { brandId: string; attemptId: string; now: DatabaseTime },
): Promise<PromoteOutcome> {
  try {
    const row = await db.transaction(async (tx) => {
      const [updated] = await tx
        .update(brands)
        .set({
          subWorkspaceId: sql`${brands.provisioningCandidateWorkspaceId}`,
          status: "active",
          provisioningStatus: "ready",
          provisioningError: null,
          updatedAt: databaseNow(input.now),
        })
        .where(
          and(
            eq(brands.id, input.brandId),
            eq(brands.provisioningAttemptId, input.attemptId),
            eq(brands.provisioningStatus, "pending"),
            isNotNull(brands.provisioningCandidateWorkspaceId),
            inArray(brands.status, ["pending", "active"]),
          ),
        )
        .returning();
      return updated;
    });
    return row ? { outcome: "promoted", brand: row } : { outcome: "lost" };
  } catch (error) {
    if (isSubWorkspaceUniqueViolation(error)) return { outcome: "superseded" };
    throw error;
  }
}
