import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { AT, atPlus, clockCte, parentEntry, upsertEntry } from "../resourceObservations/foldedEntry.ts";
import type { PoolFreeBoundWindow } from "./poolFreeBoundWindow.ts";

/**
 * What a call sent `sentAgoMs` ago told of `orgId`'s pool in `dimension` (docs/decisions/0033):
 * - `refused`: a transfer taking `freeBelow` units was refused for insufficient units, so the free
 *   units are below it; a bound still trusted that says less is kept;
 * - `read`: a read of the parent showed `freeBelow − 1` free units (`total − used`), which replaces
 *   what was known.
 * One guarded upsert: it changes nothing unless the dimension's version is still the one the
 * caller read before sending the call and no lowering is in flight (no unit came back since, or is
 * on its way, which the call may not have seen; rows are never deleted, so a caller that saw no row
 * quotes 0 and a lowering since made it 1), or when what is known was taught by a call sent later.
 * Answers whether the row changed; when it did, the parent's entry of the resources record takes
 * the same bound (the fold, docs/decisions/0046).
 */
export async function recordPoolFreeBound(
  db: DbExecutor,
  bound: {
    orgId: string;
    dimension: Dimension;
    freeBelow: number;
    sentAgoMs: number;
    source: "refused" | "read";
    /** The dimension's version, read before the call was sent. */
    version: number;
  },
  window: PoolFreeBoundWindow,
): Promise<boolean> {
  const sentAt = atPlus(-Math.max(0, bound.sentAgoMs));
  const tighterKept =
    bound.source === "refused"
      ? sql`and not (
          r.free_below is not null
          and r.learned_at > ${atPlus(-window.ttlMs)}
          and r.free_below <= excluded.free_below
        )`
      : sql``;
  const prefix = bound.dimension === "projects" ? "projects" : "prompts";
  const learned = [
    {
      name: `${prefix}_free_below`,
      value: sql`${bound.freeBelow}::integer`,
      set: sql`${bound.freeBelow}::integer`,
    },
    { name: `${prefix}_free_learned_at`, value: sentAt, set: sentAt },
  ];
  const result = await db.execute<{ changed: boolean }>(sql`
    with ${clockCte(window.now)},
    bound as (
      insert into pool_free_bounds as r (org_id, dimension, free_below, learned_at, generation)
      values (${bound.orgId}::uuid, ${bound.dimension}, ${bound.freeBelow}::integer, ${sentAt}, 0)
      on conflict (org_id, dimension) do update set
        free_below = excluded.free_below,
        learned_at = excluded.learned_at
      where r.generation = ${bound.version}::integer
        and (r.lowerings_in_flight = 0 or r.lowering_until < ${AT})
        and (r.free_below is null or r.learned_at is null or excluded.learned_at >= r.learned_at)
        ${tighterKept}
      returning org_id
    ), entry as (
      ${upsertEntry(parentEntry(bound.orgId), learned, sql`exists (select 1 from bound)`)}
    )
    select exists (select 1 from bound) as changed
  `);
  return result.rows[0]?.changed ?? false;
}
