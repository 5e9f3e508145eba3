import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/**
 * Deletes every org's samples taken before `before`, a bounded batch at a time (by the
 * `sampled_at` index); returns how many went.
 */
export async function purgeExpiredPoolSamples(
  db: DbExecutor,
  query: { before: Date; limit?: number },
): Promise<number> {
  const result = await db.execute(sql`
    delete from pool_samples where id in (
      select id from pool_samples where sampled_at < ${query.before} limit ${query.limit ?? 10_000}
    )`);
  return result.rowCount ?? 0;
}
