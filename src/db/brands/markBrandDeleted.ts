import { and, eq, ne } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * The last step of a brand delete, after its deactivation: `deleted`, its name key cleared (the
 * per-org uniqueness applies to live brands only, so the name is free again), the emptied shell it
 * leaves upstream remembered. Guarded on the brand not being deleted already (`undefined` then).
 */
export async function markBrandDeleted(
  db: DbExecutor,
  input: { brandId: string; retiredSubWorkspaceId: string | null; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({
      status: "deleted",
      nameKey: null,
      retiredSubWorkspaceId: input.retiredSubWorkspaceId,
      updatedAt: databaseNow(input.now),
    })
    .where(and(eq(brands.id, input.brandId), ne(brands.status, "deleted")))
    .returning();
  return row;
}
