import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";

export interface ApiRequestCount {
  /** Requests of the key's current window, this one included. */
  count: number;
  /** Milliseconds until that window ends (PostgreSQL's clock). */
  ttlMs: number;
}

/**
 * Counts one request of `key` in one statement: a key without a row, or whose window has ended,
 * starts a new window of `windowMs` at 1; else its count goes up by one. Every process counts in
 * the same row, on the database's clock (docs/decisions/0029).
 */
export async function countApiRequest(
  db: DbExecutor,
  input: { key: string; windowMs: number; now?: DatabaseTime },
): Promise<ApiRequestCount> {
  const now = databaseNow(input.now);
  const windowEnd = sql`(${now} + ${Math.round(input.windowMs)}::double precision * interval '1 millisecond')`;
  const result = await db.execute<{ count: number; ttl_ms: string | number }>(sql`
    insert into api_rate_limits as row (key, count, window_ends_at)
    values (${input.key}, 1, ${windowEnd})
    on conflict (key) do update set
      count = case when row.window_ends_at <= ${now} then 1 else row.count + 1 end,
      window_ends_at = case when row.window_ends_at <= ${now} then ${windowEnd} else row.window_ends_at end
    returning count, greatest(0, extract(epoch from (window_ends_at - ${now})) * 1000) as ttl_ms`);
  const row = result.rows[0]!;
  return { count: Number(row.count), ttlMs: Math.ceil(Number(row.ttl_ms)) };
}
