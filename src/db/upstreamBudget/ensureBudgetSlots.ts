import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { BudgetKey } from "./budgetKey.ts";

/**
 * Creates the slot rows 0 … slots−1 of a budget that lack one (first use, or a raised limit), all
 * free, their previous call ended at the epoch. Idempotent: concurrent processes may race on it.
 */
export async function ensureBudgetSlots(db: DbExecutor, key: BudgetKey, slots: number): Promise<void> {
  await db.execute(sql`
    insert into upstream_budget_slots (account_key, endpoint_group, slot, started_at, ended_at)
    select ${key.accountKey}, ${key.group}, g, 'epoch'::timestamptz, 'epoch'::timestamptz
    from generate_series(0, ${slots}::int - 1) as g
    on conflict do nothing`);
}
