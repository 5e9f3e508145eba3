import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import {
  announcementBegins,
  AT,
  atPlus,
  clockCte,
  type EntryColumn,
  parentEntry,
  upsertEntry,
} from "../resourceObservations/foldedEntry.ts";

/**
 * Serenity is about to give units back to `orgId`'s pool (a release, a sibling lowered): before the
 * transfer is sent, a bound still known is raised by what it returns — as if it will apply; if it
 * does not, the bound only says more than is free, the safe direction — the dimension's
 * version (column `generation`) moves on, and the lowering counts as in flight until `endPoolLowering`, or for
 * `holdMs` on the database's clock when that is never written (docs/decisions/0033). While it is
 * in flight nothing a call taught is recorded: the call may have been answered before the units
 * arrived. One statement for every dimension given, which announces it on the parent's entry of
 * the resources record too (the fold, docs/decisions/0046).
 */
export async function beginPoolLowering(
  db: DbExecutor,
  lowering: { orgId: string; returning: Partial<Record<Dimension, number>> },
  window: { now: DatabaseTime; holdMs: number },
): Promise<void> {
  // The dimensions' order, in which every statement locks an org's rows (endPoolLowering too).
  const returning = Object.entries(lowering.returning).sort(([a], [b]) => a.localeCompare(b));
  const rows = returning.map(
    ([dimension, units]) => sql`(${lowering.orgId}::uuid, ${dimension}, ${units}::integer)`,
  );
  if (rows.length === 0) return;
  const raised = returning.map(([dimension, units]): EntryColumn => {
    const column = `${dimension === "projects" ? "projects" : "prompts"}_free_below`;
    return { name: column, value: sql`null::integer`, set: sql`r.${sql.raw(column)} + ${units}::integer` };
  });
  await db.execute(sql`
    with ${clockCte(window.now)},
    v(org_id, dimension, units) as (values ${sql.join(rows, sql`, `)}),
    bounds as (
      insert into pool_free_bounds as r (org_id, dimension, generation, lowerings_in_flight, lowering_until)
      select v.org_id, v.dimension, 1, 1, ${atPlus(window.holdMs)} from v
      on conflict (org_id, dimension) do update set
        free_below = r.free_below + (select v.units from v where v.dimension = r.dimension),
        generation = r.generation + 1,
        -- A lowering whose end was never written stops counting once its hold is over.
        lowerings_in_flight = case when r.lowering_until > ${AT}
          then r.lowerings_in_flight + 1 else 1 end,
        lowering_until = greatest(r.lowering_until, excluded.lowering_until)
      returning 1
    )
    ${upsertEntry(
      parentEntry(lowering.orgId),
      [...announcementBegins(window.holdMs), ...raised],
      sql`exists (select 1 from bounds)`,
    )}
  `);
}
