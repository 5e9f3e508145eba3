import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { runPrepared } from "../runPrepared.ts";
import type { BudgetKey, DatabaseTime } from "./budgetKey.ts";

/**
 * Frees a slot by its holder token and stamps its end: the slot is reusable one window later. A
 * slot whose lease expired and was taken over by another call is not touched (false).
 */
export async function releaseBudgetSlot(
  db: DbExecutor,
  values: { key: BudgetKey; slot: number; holder: string; now: DatabaseTime },
): Promise<boolean> {
  const result = await runPrepared(
    db,
    "serenity_release_budget_slot",
    sql`
    update upstream_budget_slots
    set holder = null, holder_priority = null, lease_expires_at = null,
        ended_at = coalesce(${values.now ?? null}::timestamptz, clock_timestamp())
    where account_key = ${values.key.accountKey} and endpoint_group = ${values.key.group}
      and slot = ${values.slot}::int and holder = ${values.holder}::uuid`,
  );
  return (result.rowCount ?? 0) === 1;
}
