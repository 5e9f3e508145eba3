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
  /** How many times Serenity gave units back in each dimension so far (0 for no row). */
  generations: Record<Dimension, number>;
  /** Dimensions whose bound is older than `freshMs`: worth reading the parent again. */
  aging: Dimension[];
}

/** What is known of `orgId`'s pool, and the generations a call about to be sent must quote. */
export async function findPoolFreeBounds(
  db: DbExecutor,
  orgId: string,
  window: PoolFreeBoundWindow & { freshMs: number },
): Promise<KnownPoolFree> {
  const result = await db.execute<{
    dimension: Dimension;
    free_below: number | null;
    generation: number;
    aging: boolean;
  }>(sql`
    select dimension,
      case when learned_at > ${databaseNowPlus(window.now, -window.ttlMs)} then free_below end as free_below,
      generation,
      coalesce(learned_at <= ${databaseNowPlus(window.now, -window.freshMs)}, false) as aging
    from pool_free_bounds
    where org_id = ${orgId}::uuid
  `);
  const known: KnownPoolFree = { bounds: {}, generations: { projects: 0, prompts: 0 }, aging: [] };
  for (const row of result.rows) {
    if (!DIMENSIONS.includes(row.dimension)) continue;
    known.generations[row.dimension] = Number(row.generation);
    if (row.free_below === null) continue;
    known.bounds[row.dimension] = Number(row.free_below);
    if (row.aging) known.aging.push(row.dimension);
  }
  return known;
}
