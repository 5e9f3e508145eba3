import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import type { PoolFreeBoundWindow } from "./findPoolFreeBounds.ts";
import { AT, atPlus, clockCte, type EntryColumn, parentEntry, upsertEntry } from "./foldedEntry.ts";

/**
 * What a call sent `sentAgoMs` ago told of `orgId`'s pool in `dimension` (docs/decisions/0033):
 * - `refused`: a transfer taking `freeBelow` units was refused for insufficient units, so the free
 *   units are below it; a bound still trusted that says less is kept;
 * - `read`: a read of the parent showed `freeBelow − 1` free units (`total − used`), which replaces
 *   what was known.
 * One guarded upsert of the parent's entry of the resources record (docs/decisions/0047): it
 * changes nothing unless the entry's version is still the one the caller read before sending the
 * call and no announcement on it is in flight (no unit came back since, or is on its way, which
 * the call may not have seen; a caller that saw no entry quotes 0), or when what is known was
 * taught by a call sent later. Answers whether the entry changed.
 */
export async function recordPoolFreeBound(
  db: DbExecutor,
  bound: {
    orgId: string;
    dimension: Dimension;
    freeBelow: number;
    sentAgoMs: number;
    source: "refused" | "read";
    /** The parent entry's version, read before the call was sent. */
    version: number;
  },
  window: PoolFreeBoundWindow,
): Promise<boolean> {
  const sentAt = atPlus(-Math.max(0, bound.sentAgoMs));
  const prefix = bound.dimension === "projects" ? "projects" : "prompts";
  const freeBelow = sql.raw(`r.${prefix}_free_below`);
  const learnedAt = sql.raw(`r.${prefix}_free_learned_at`);
  const tighterKept =
    bound.source === "refused"
      ? sql`and not (${freeBelow} is not null and ${learnedAt} > ${atPlus(-window.ttlMs)}
          and ${freeBelow} <= ${bound.freeBelow}::integer)`
      : sql``;
  const takes = sql`r.version = ${bound.version}::integer
    and (r.announced = 0 or r.announced_until < ${AT})
    and (${freeBelow} is null or ${learnedAt} is null or ${sentAt} >= ${learnedAt})
    ${tighterKept}`;
  // Quoting a version, the caller read an entry: none now (its org took another parent) takes nothing.
  const proposed = sql`(${bound.version}::integer = 0 or exists (
    select 1 from resource_observations x where x.org_id = e.org_id and x.workspace_id = e.workspace_id))`;
  const learned: EntryColumn[] = [
    {
      name: `${prefix}_free_below`,
      value: sql`${bound.freeBelow}::integer`,
      set: sql`${bound.freeBelow}::integer`,
    },
    { name: `${prefix}_free_learned_at`, value: sentAt, set: sentAt },
  ];
  const result = await db.execute<{ changed: boolean }>(sql`
    with ${clockCte(window.now)},
    entry as (
      ${upsertEntry(parentEntry(bound.orgId), learned, proposed, takes)}
      returning 1
    )
    select exists (select 1 from entry) as changed
  `);
  return result.rows[0]?.changed ?? false;
}
