import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNowPlus } from "../databaseTime.ts";
import type { PoolFreeBoundWindow } from "./poolFreeBoundWindow.ts";

/**
 * What a call sent `sentAgoMs` ago told of `orgId`'s pool in `dimension` (docs/decisions/0033):
 * - `refused`: a transfer taking `freeBelow` units was refused for insufficient units, so the free
 *   units are below it; a bound still trusted that says less is kept;
 * - `read`: a read of the parent showed `freeBelow − 1` free units (`total − used`), which replaces
 *   what was known.
 * One guarded upsert on the database's clock, which changes nothing when a release Serenity made
 * was answered after the call was sent (`grown_until`): the call may predate units given back
 * since. Answers whether the row changed.
 */
export async function recordPoolFreeBound(
  db: DbExecutor,
  bound: {
    orgId: string;
    dimension: Dimension;
    freeBelow: number;
    sentAgoMs: number;
    source: "refused" | "read";
  },
  window: PoolFreeBoundWindow,
): Promise<boolean> {
  const sentAt = databaseNowPlus(window.now, -Math.max(0, bound.sentAgoMs));
  const tighterKept =
    bound.source === "refused"
      ? sql`and not (
          r.free_below is not null
          and r.learned_at > ${databaseNowPlus(window.now, -window.ttlMs)}
          and r.free_below <= excluded.free_below
        )`
      : sql``;
  const result = await db.execute(sql`
    insert into pool_free_bounds as r (org_id, dimension, free_below, learned_at)
    values (${bound.orgId}::uuid, ${bound.dimension}, ${bound.freeBelow}::integer, ${sentAt})
    on conflict (org_id, dimension) do update set
      free_below = excluded.free_below,
      learned_at = excluded.learned_at
    where (r.grown_until is null or excluded.learned_at > r.grown_until) ${tighterKept}
    returning org_id
  `);
  return result.rows.length > 0;
}
