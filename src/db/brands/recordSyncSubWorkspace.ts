import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";
import { isSubWorkspaceUniqueViolation } from "./subWorkspaceUniqueViolation.ts";

export type SyncPointerOutcome =
  | { outcome: "recorded"; brand: BrandRow }
  /** 0 rows: an async attempt owns the brand, the brand is deleted, or it points elsewhere. */
  | { outcome: "lost" }
  /** The workspace is already another brand's canonical pointer. */
  | { outcome: "claimedByAnotherBrand" };

/**
 * The synchronous path's pointer write (spec/provisioning.md §7): once the workspace is ready,
 * point the brand at it and make it `active` — unless a concurrent asynchronous attempt owns the
 * brand (`provisioning_status` pending), which must never be overwritten. The brand must not point
 * at another workspace already (a concurrent sync call won) and must not be deleted.
 *
 * The brand's provisioning reads `ready` afterwards, with no error (an old failed attempt's
 * sentence would otherwise sit next to a working workspace). Setting it also when no asynchronous
 * attempt was ever made is deliberate: `provisioning_status` is the brand's provisioning history,
 * and a brand that once had a sub-workspace must never look flat again — after a deactivate clears
 * its pointer, its market writes must be refused rather than fall through into the org's shared
 * parent (ADR 0006).
 */
export async function recordSyncSubWorkspace(
  db: DbExecutor,
  input: { brandId: string; subWorkspaceId: string; now: DatabaseTime },
): Promise<SyncPointerOutcome> {
  try {
    const row = await db.transaction(async (tx) => {
      const [updated] = await tx
        .update(brands)
        .set({
          subWorkspaceId: input.subWorkspaceId,
          status: "active",
          provisioningStatus: "ready",
          provisioningError: null,
          updatedAt: databaseNow(input.now),
        })
        .where(
          and(
            eq(brands.id, input.brandId),
            sql`${brands.provisioningStatus} is distinct from 'pending'`,
            or(isNull(brands.subWorkspaceId), eq(brands.subWorkspaceId, input.subWorkspaceId)),
            inArray(brands.status, ["pending", "active"]),
          ),
        )
        .returning();
      return updated;
    });
    return row ? { outcome: "recorded", brand: row } : { outcome: "lost" };
  } catch (error) {
    if (isSubWorkspaceUniqueViolation(error)) return { outcome: "claimedByAnotherBrand" };
    throw error;
  }
}
