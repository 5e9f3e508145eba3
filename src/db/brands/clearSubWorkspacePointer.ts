import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * Deactivate's pointer clear, guarded on the pointer value the caller read and emptied: if the
 * brand was re-pointed in between, that newer workspace is left alone. `undefined` = lost.
 * The provisioning columns are kept: they are the brand's history and keep it in sub-workspace
 * mode, so a later market write can never fall through into the org's shared parent.
 */
export async function clearSubWorkspacePointer(
  db: DbExecutor,
  input: { brandId: string; subWorkspaceId: string; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({ subWorkspaceId: null, updatedAt: databaseNow(input.now) })
    .where(and(eq(brands.id, input.brandId), eq(brands.subWorkspaceId, input.subWorkspaceId)))
    .returning();
  return row;
}
