import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { BudgetKey, DatabaseTime } from "./budgetKey.ts";

/**
 * Multiplicative decrease after a 429 (domain/upstreamBudget.ts lowerOn429), in one statement
 * shared by every process: halve the effective slots (the lowered value plus one per quiet step
 * since, capped), never below 1, at most once per window — a concurrent process that lost the race
 * meets the newer row in ON CONFLICT and changes nothing. Returns the new limit, or undefined when
 * this 429 fell inside the window of the last decrease.
 */
export async function lowerBudgetLimit(
  db: DbExecutor,
  values: { key: BudgetKey; slots: number; windowMs: number; increaseEveryMs: number; now: DatabaseTime },
): Promise<number | undefined> {
  const { key, slots, windowMs, increaseEveryMs } = values;
  const now = values.now ?? null;
  const result = await db.execute(sql`
    with clock as (select coalesce(${now}::timestamptz, clock_timestamp()) as t),
    cur as (
      select coalesce((
        select least(${slots}::int, greatest(1, a.lowered + floor(
          extract(epoch from (c.t - a.lowered_at)) * 1000 / ${increaseEveryMs}::int)::int))
        from upstream_budget_adaptive a, clock c
        where a.account_key = ${key.accountKey} and a.endpoint_group = ${key.group}
      ), ${slots}::int) as k
    )
    insert into upstream_budget_adaptive as a (account_key, endpoint_group, lowered, lowered_at)
    select ${key.accountKey}, ${key.group}, greatest(1, cur.k / 2), c.t from cur, clock c
    on conflict (account_key, endpoint_group) do update
      set lowered = excluded.lowered, lowered_at = excluded.lowered_at
      where a.lowered_at <= excluded.lowered_at - ${windowMs}::int * interval '1 millisecond'
    returning lowered`);
  const row = result.rows[0] as { lowered: number } | undefined;
  return row === undefined ? undefined : Number(row.lowered);
}
