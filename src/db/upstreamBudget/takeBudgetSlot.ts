import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { runPrepared } from "../runPrepared.ts";
import type { BudgetKey, DatabaseTime } from "./budgetKey.ts";

export interface TakeSlotRequest {
  key: BudgetKey;
  /** A fresh token per call: the release (and only it) frees the slot it names. */
  holder: string;
  /** priorityRank: 0 interactive, 1 job, 2 background. */
  priority: number;
  slots: number;
  windowMs: number;
  leaseMs: number;
  backgroundShare: number;
  increaseEveryMs: number;
  /** Set while the caller waits: registers (renews) its priority, so lower ones leave it a slot. */
  waiter?: { id: string; ttlMs: number };
  now: DatabaseTime;
}

export interface TakeSlotResult {
  /** The slot taken, or null when none may be taken now. */
  slot: number | null;
  /** Slot rows that exist (fewer than `slots`: create them first). */
  slotCount: number;
  /** The adaptive slot count in force (≤ slots). */
  effective: number;
  /** When the earliest usable slot frees by itself (its window after the last end, or a lease), ms from now. */
  retryInMs: number;
}

const BACKGROUND = 2;

/**
 * Takes a slot in one statement (docs/decisions/0019): among the slots below the adaptive limit,
 * one whose previous call ended at least a window ago (or whose holder's lease expired: it died),
 * locked with SKIP LOCKED so concurrent takers never wait on each other. Ending, not starting, is
 * what counts: the upstream saw the previous call arrive no later than we saw its answer, so two
 * arrivals on one slot are a window apart whatever the jitter between our clock and the network. The admission rule
 * of domain/upstreamBudget.ts mayTakeSlot applies: a lower priority leaves one free slot per live
 * higher waiter, and background work holds at most its share. When nothing is taken the same
 * statement says how soon the earliest slot frees by itself.
 */
export async function takeBudgetSlot(db: DbExecutor, request: TakeSlotRequest): Promise<TakeSlotResult> {
  const { key, holder, priority, slots, windowMs, leaseMs, backgroundShare, increaseEveryMs } = request;
  const now = request.now ?? null;
  const register = request.waiter !== undefined;
  const waiterId = request.waiter?.id ?? "00000000-0000-0000-0000-000000000000";
  const waiterTtlMs = request.waiter?.ttlMs ?? 0;
  const result = await runPrepared(
    db,
    "serenity_take_budget_slot",
    sql`
    with clock as (select coalesce(${now}::timestamptz, clock_timestamp()) as t),
    lim as (
      select coalesce((
        select least(${slots}::int, greatest(1, a.lowered + floor(
          extract(epoch from (c.t - a.lowered_at)) * 1000 / ${increaseEveryMs}::int)::int))
        from upstream_budget_adaptive a, clock c
        where a.account_key = ${key.accountKey} and a.endpoint_group = ${key.group}
      ), ${slots}::int) as k
    ),
    registered as (
      insert into upstream_budget_waiters (account_key, endpoint_group, waiter, priority, expires_at)
      select ${key.accountKey}, ${key.group}, ${waiterId}::uuid, ${priority}::int,
             c.t + ${waiterTtlMs}::int * interval '1 millisecond'
      from clock c where ${register}::boolean
      on conflict (account_key, endpoint_group, waiter, priority)
        do update set expires_at = excluded.expires_at
      returning 1
    ),
    higher as (
      select count(*)::int as n from upstream_budget_waiters w, clock c
      where w.account_key = ${key.accountKey} and w.endpoint_group = ${key.group}
        and w.priority < ${priority}::int and w.expires_at > c.t
    ),
    background_held as (
      select count(*)::int as n from upstream_budget_slots s, clock c
      where s.account_key = ${key.accountKey} and s.endpoint_group = ${key.group}
        and s.holder is not null and s.lease_expires_at > c.t and s.holder_priority = ${BACKGROUND}
    ),
    free as (
      select s.slot, s.ended_at from upstream_budget_slots s, clock c, lim
      where s.account_key = ${key.accountKey} and s.endpoint_group = ${key.group}
        and s.slot < lim.k
        and ((s.holder is null and s.ended_at <= c.t - ${windowMs}::int * interval '1 millisecond')
          or (s.holder is not null and s.lease_expires_at <= c.t))
      for update of s skip locked
    ),
    pick as (
      select f.slot from free f, higher h, background_held b
      where (select count(*) from free) > h.n
        and (${priority}::int < ${BACKGROUND} or b.n < ${backgroundShare}::int)
      order by f.ended_at, f.slot
      limit 1
    ),
    taken as (
      update upstream_budget_slots s
      set holder = ${holder}::uuid, holder_priority = ${priority}::int, started_at = c.t,
          lease_expires_at = c.t + ${leaseMs}::int * interval '1 millisecond'
      from pick, clock c
      where s.account_key = ${key.accountKey} and s.endpoint_group = ${key.group} and s.slot = pick.slot
      returning s.slot
    )
    select
      (select slot from taken) as slot,
      (select count(*)::int from upstream_budget_slots
        where account_key = ${key.accountKey} and endpoint_group = ${key.group}) as slot_count,
      (select k from lim) as effective,
      (select coalesce(greatest(0, ceil(extract(epoch from (min(
          case when s.holder is not null and s.lease_expires_at > c.t then s.lease_expires_at
               else s.ended_at + ${windowMs}::int * interval '1 millisecond' end)
          - (select t from clock))) * 1000)), 0)::int
        from upstream_budget_slots s, clock c, lim
        where s.account_key = ${key.accountKey} and s.endpoint_group = ${key.group} and s.slot < lim.k
      ) as retry_in_ms,
      (select count(*) from registered) as registered`,
  );
  const row = result.rows[0] as {
    slot: number | null;
    slot_count: number;
    effective: number;
    retry_in_ms: number;
  };
  return {
    slot: row.slot === null ? null : Number(row.slot),
    slotCount: Number(row.slot_count),
    effective: Number(row.effective),
    retryInMs: Number(row.retry_in_ms),
  };
}
