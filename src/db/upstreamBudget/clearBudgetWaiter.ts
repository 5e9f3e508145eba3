import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { BudgetKey } from "./budgetKey.ts";

/** Withdraws a process's waiter registration for one priority (no local waiter of it is left). */
export async function clearBudgetWaiter(
  db: DbExecutor,
  values: { key: BudgetKey; waiter: string; priority: number },
): Promise<void> {
  await db.execute(sql`
    delete from upstream_budget_waiters
    where account_key = ${values.key.accountKey} and endpoint_group = ${values.key.group}
      and waiter = ${values.waiter}::uuid and priority = ${values.priority}::int`);
}
