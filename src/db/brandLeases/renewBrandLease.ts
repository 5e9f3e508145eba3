import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brandLeases } from "../schema.ts";

/** Extends a held brand lease (the heartbeat), guarded by the holder token: `false` = lost. */
export async function renewBrandLease(
  db: DbExecutor,
  values: { brandId: string; holder: string; now: Date; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .update(brandLeases)
    .set({ expiresAt: new Date(values.now.getTime() + values.ttlMs) })
    .where(and(eq(brandLeases.brandId, values.brandId), eq(brandLeases.holder, values.holder)))
    .returning({ holder: brandLeases.holder });
  return rows.length === 1;
}
