import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import {
  announcementBegins,
  clockCte,
  type EntryColumn,
  parentEntry,
  upsertEntry,
} from "../resourceObservations/foldedEntry.ts";

/**
 * Serenity is about to give units back to `orgId`'s pool (a release, a sibling lowered): before the
 * transfer is sent, the parent's entry of the resources record announces it (the fold,
 * docs/decisions/0046, 0048) — a bound still known is raised by what it returns (as if it will
 * apply; if it does not, the bound only says more than is free, the safe direction), the version
 * moves on, and the lowering counts as in flight until `endPoolLowering`, or for `holdMs` on the
 * database's clock when that is never written (docs/decisions/0033). While it is in flight nothing
 * a call taught is recorded: the call may have been answered before the units arrived. One
 * statement for every dimension given.
 */
export async function beginPoolLowering(
  db: DbExecutor,
  lowering: { orgId: string; returning: Partial<Record<Dimension, number>> },
  window: { now: DatabaseTime; holdMs: number },
): Promise<void> {
  const returning = Object.entries(lowering.returning);
  if (returning.length === 0) return;
  const raised = returning.map(([dimension, units]): EntryColumn => {
    const column = `${dimension === "projects" ? "projects" : "prompts"}_free_below`;
    return { name: column, value: sql`null::integer`, set: sql`r.${sql.raw(column)} + ${units}::integer` };
  });
  await db.execute(sql`
    with ${clockCte(window.now)}
    ${upsertEntry(parentEntry(lowering.orgId), [...announcementBegins(window.holdMs), ...raised])}
  `);
}
