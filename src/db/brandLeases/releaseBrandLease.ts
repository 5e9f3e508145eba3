import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brandLeases } from "../schema.ts";

/**
 * Releases a brand lease by its holder token only: a holder whose lease expired and was taken over
 * deletes nothing. `false` = the lease was no longer ours.
 */
export async function releaseBrandLease(
  db: DbExecutor,
  values: { brandId: string; holder: string },
): Promise<boolean> {
  const rows = await db
    .delete(brandLeases)
    .where(and(eq(brandLeases.brandId, values.brandId), eq(brandLeases.holder, values.holder)))
    .returning({ holder: brandLeases.holder });
  return rows.length === 1;
}
