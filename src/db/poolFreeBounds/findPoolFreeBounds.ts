import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNowPlus } from "../databaseTime.ts";
import type { PoolFreeBoundWindow } from "./poolFreeBoundWindow.ts";

/**
 * What `orgId`'s pool is known to hold at most, per dimension: its free units there are below the
 * figure (docs/decisions/0033). Only bounds younger than the window's TTL, on the database's clock;
 * a dimension absent is not known.
 */
export async function findPoolFreeBounds(
  db: DbExecutor,
  orgId: string,
  window: PoolFreeBoundWindow,
): Promise<Partial<Record<Dimension, number>>> {
  const result = await db.execute<{ dimension: Dimension; free_below: number }>(sql`
    select dimension, free_below from pool_free_bounds
    where org_id = ${orgId}::uuid
      and free_below is not null
      and learned_at > ${databaseNowPlus(window.now, -window.ttlMs)}
  `);
  return Object.fromEntries(result.rows.map((row) => [row.dimension, row.free_below]));
}
