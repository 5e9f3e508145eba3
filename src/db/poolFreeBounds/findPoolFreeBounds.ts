import { sql } from "drizzle-orm";

import { type Dimension, DIMENSIONS } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNowPlus } from "../databaseTime.ts";
import type { PoolFreeBoundWindow } from "./poolFreeBoundWindow.ts";

export interface KnownPoolFree {
  /**
   * Dimension → the pool's free units there are below this (docs/decisions/0033); only bounds
   * younger than the window's TTL, on the database's clock. A dimension absent is not known.
   */
  bounds: Partial<Record<Dimension, number>>;
  /**
   * Each dimension's version: moved on by every lowering's start and end (0 for no row); a call
   * quotes the one read before it was sent (recordPoolFreeBound).
   */
  versions: Record<Dimension, number>;
  /** Dimensions whose bound is older than `freshMs`: worth reading the parent again. */
  aging: Dimension[];
}

/** What is known of `orgId`'s pool, and the versions a call about to be sent must quote. */
export async function findPoolFreeBounds(
  db: DbExecutor,
  orgId: string,
  window: PoolFreeBoundWindow & { freshMs: number },
): Promise<KnownPoolFree> {
  const result = await db.execute<{
    dimension: Dimension;
    free_below: number | null;
    version: number;
    aging: boolean;
  }>(sql`
    select dimension,
      case when learned_at > ${databaseNowPlus(window.now, -window.ttlMs)} then free_below end as free_below,
      generation as version,
      coalesce(learned_at <= ${databaseNowPlus(window.now, -window.freshMs)}, false) as aging
    from pool_free_bounds
    where org_id = ${orgId}::uuid
  `);
  const known: KnownPoolFree = { bounds: {}, versions: { projects: 0, prompts: 0 }, aging: [] };
  for (const row of result.rows) {
    if (!DIMENSIONS.includes(row.dimension)) continue;
    known.versions[row.dimension] = Number(row.version);
    if (row.free_below === null) continue;
    known.bounds[row.dimension] = Number(row.free_below);
    if (row.aging) known.aging.push(row.dimension);
  }
  return known;
}
