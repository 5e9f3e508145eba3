import { lt, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { brandLeases } from "../schema.ts";

/**
 * Takes a brand's lease in one statement: insert it, or take over a row whose lease expired (its
 * holder crashed or stalled). `false` = a live holder exists, a lost race the caller waits on —
 * never an exception. Expiry is set and compared on the database's clock, never the caller's
 * (docs/decisions/0023).
 */
export async function acquireBrandLease(
  db: DbExecutor,
  values: { brandId: string; holder: string; now: DatabaseTime; ttlMs: number },
): Promise<boolean> {
  const rows = await db
    .insert(brandLeases)
    .values({
      brandId: values.brandId,
      holder: values.holder,
      expiresAt: databaseNowPlus(values.now, values.ttlMs),
    })
    .onConflictDoUpdate({
      target: brandLeases.brandId,
      set: { holder: sql`excluded.holder`, expiresAt: sql`excluded.expires_at` },
      setWhere: lt(brandLeases.expiresAt, databaseNow(values.now)),
    })
    .returning({ brandId: brandLeases.brandId });
  return rows.length === 1;
}
