import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/**
 * Forgets the budget of every account unseen since `before` (issue 39, item 7): its slot rows — only
 * when none of them started or ended since then and none is held under a live lease — its adaptive
 * limit and its waiter registrations. A budget forgotten this way is made anew at the account's next
 * call (the take sees fewer slots than configured and creates them), at full speed: after a day the
 * adaptive limit would have recovered anyway. `now` is the reconciler's database time.
 */
export async function purgeIdleBudgetAccounts(
  db: DbExecutor,
  { before, now }: { before: Date; now: Date },
): Promise<{ slots: number; adaptive: number; waiters: number }> {
  const idle = sql`
    select account_key from upstream_budget_slots
    group by account_key
    having max(greatest(started_at, ended_at)) < ${before}
       and bool_and(holder is null or lease_expires_at is null or lease_expires_at < ${now})`;
  const slots = await db.execute(sql`
    delete from upstream_budget_slots
    where account_key in (${idle}) and greatest(started_at, ended_at) < ${before}`);
  const adaptive = await db.execute(sql`delete from upstream_budget_adaptive where lowered_at < ${before}`);
  const waiters = await db.execute(sql`delete from upstream_budget_waiters where expires_at < ${before}`);
  return { slots: slots.rowCount ?? 0, adaptive: adaptive.rowCount ?? 0, waiters: waiters.rowCount ?? 0 };
}
