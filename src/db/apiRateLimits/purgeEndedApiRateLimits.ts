import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/** Deletes counters whose window ended (PostgreSQL's clock), a bounded batch at a time. Returns how many. */
export async function purgeEndedApiRateLimits(db: DbExecutor, limit = 10_000): Promise<number> {
  const result = await db.execute(sql`
    delete from api_rate_limits where ctid in (
      select ctid from api_rate_limits where window_ends_at <= clock_timestamp() limit ${limit}
    )`);
  return result.rowCount ?? 0;
}
