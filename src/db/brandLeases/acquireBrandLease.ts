import { lt, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brandLeases } from "../schema.ts";

/**
 * Takes a brand's lease in one statement: insert it, or take over a row whose lease expired (its
 * holder crashed or stalled). `false` = a live holder exists, a lost race the caller waits on —
 * never an exception. Expiry compares with the caller's clock (docs/decisions/0015).
 */
export async function acquireBrandLease(
  db: DbExecutor,
  values: { brandId: string; holder: string; now: Date; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .insert(brandLeases)
    .values({
      brandId: values.brandId,
      holder: values.holder,
      expiresAt: new Date(values.now.getTime() + values.ttlMs),
    })
    .onConflictDoUpdate({
      target: brandLeases.brandId,
      set: { holder: sql`excluded.holder`, expiresAt: sql`excluded.expires_at` },
      setWhere: lt(brandLeases.expiresAt, values.now),
    })
    .returning({ brandId: brandLeases.brandId });
  return rows.length === 1;
}
