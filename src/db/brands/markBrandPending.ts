import { and, eq, ne } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/** Deactivate's last step: the brand goes back to `pending` (a deleted brand stays deleted). */
export async function markBrandPending(
  db: DbExecutor,
  input: { brandId: string; now: DatabaseTime },
): Promise<BrandRow | undefined> {
  const [row] = await db
    .update(brands)
    .set({ status: "pending", updatedAt: databaseNow(input.now) })
    .where(and(eq(brands.id, input.brandId), ne(brands.status, "deleted")))
    .returning();
  return row;
}
