import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/** Deletes keys past their lifetime (PostgreSQL's clock), a bounded batch at a time. Returns how many. */
export async function purgeExpiredIdempotencyKeys(db: DbExecutor, limit = 10_000): Promise<number> {
  const result = await db.execute(sql`
    delete from idempotency_keys where ctid in (
      select ctid from idempotency_keys where expires_at <= clock_timestamp() limit ${limit}
    )`);
  return result.rowCount ?? 0;
}
