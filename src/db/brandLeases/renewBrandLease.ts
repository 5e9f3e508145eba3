import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { brandLeases } from "../schema.ts";

/**
 * Extends a held brand lease (the heartbeat) by `ttlMs` from the database's clock, guarded by the
 * holder token: `false` = lost.
 */
export async function renewBrandLease(
  db: DbExecutor,
  values: { brandId: string; holder: string; now: DatabaseTime; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .update(brandLeases)
    .set({ expiresAt: databaseNowPlus(values.now, values.ttlMs) })
    .where(and(eq(brandLeases.brandId, values.brandId), eq(brandLeases.holder, values.holder)))
    .returning({ holder: brandLeases.holder });
  return rows.length === 1;
}
