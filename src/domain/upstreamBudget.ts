/**
 * The pure rules of the upstream budget (docs/decisions/0019): Semrush counts requests per account
 * and endpoint group (spec/gateway.md §7); Serenity keeps one budget of `slots` per (account,
 * group), shared by every process through PostgreSQL. These functions decide, from numbers only,
 * who may take a slot and how the adaptive limit moves; the SQL of src/db/upstreamBudget/ applies
 * the same rules in one statement, and the tests hold both to them.
 */

export { ENDPOINT_GROUPS, type EndpointGroup } from "./endpointGroup.ts";

/** Who is waiting: a person at an HTTP request first, then job work, then background passes. */
export type UpstreamPriority = "interactive" | "job" | "background";

export const UPSTREAM_PRIORITIES: readonly UpstreamPriority[] = ["interactive", "job", "background"];

/** Smaller is more urgent; stored as this number in the database. */
export function priorityRank(priority: UpstreamPriority): number {
  return UPSTREAM_PRIORITIES.indexOf(priority);
}

/** What a caller brings to the budget: how urgent, and when it stops being worth waiting (epoch ms). */
export interface UpstreamScope {
  priority: UpstreamPriority;
  deadlineAt: number;
  /**
   * When the work this call serves began (epoch ms): within a priority the oldest work goes first,
   * so a burst of multi-step work finishes item by item (and its steps in different endpoint groups
   * overlap) instead of advancing every item in lockstep. A job's work began when its lineage's
   * first record was made; a request's when it arrived. Unset: the deadline orders it.
   */
  since?: number;
}

/**
 * The order of waiters within one (account, group): priority, then the oldest work, then the
 * earliest deadline, then arrival (`seq`). Negative when `a` goes first.
 */
export function compareWaiters(
  a: { rank: number; since: number; deadlineAt: number; seq: number },
  b: { rank: number; since: number; deadlineAt: number; seq: number },
): number {
  return a.rank - b.rank || a.since - b.since || a.deadlineAt - b.deadlineAt || a.seq - b.seq;
}

/** The limits of one (account, group) budget, from the settings. */
export interface BudgetLimits {
  /** Slots = calls in flight, each reused no sooner than `windowMs` after its previous call ended. */
  slots: number;
  /** 1 s (Semrush's window) plus a small margin for the window's edges and clock granularity. */
  windowMs: number;
  /** At most this many slots held by background work at once. */
  backgroundShare: number;
}

/**
 * The slot count that bounds both published limits at once: N slots, each reused a window after
 * its previous call ended, allow ≤ N arrivals in any window and ≤ N in flight. `0` (either limit unset) = unlimited.
 */
export function slotCountOf(perSecond: number, concurrent: number): number {
  if (perSecond <= 0 || concurrent <= 0) return 0;
  return Math.min(perSecond, concurrent);
}

/** What the admission rule sees when a caller asks for a slot. */
export interface AdmissionInput {
  priority: UpstreamPriority;
  /** Usable slots free right now (idle for a window since their last call, below the adaptive limit). */
  freeSlots: number;
  /** Live waiters of a strictly higher priority, in any process. */
  higherWaiters: number;
  /** Slots held by background work right now. */
  backgroundHeld: number;
  backgroundShare: number;
}

/**
 * May this caller take a slot now? Interactive: whenever one is free. A lower priority leaves as
 * many free slots as there are higher waiters (so it never takes the one a waiting interactive call
 * would get), and background work never holds more than its share.
 */
export function mayTakeSlot(input: AdmissionInput): boolean {
  if (input.freeSlots <= 0) return false;
  if (input.priority === "background" && input.backgroundHeld >= input.backgroundShare) return false;
  return input.freeSlots > input.higherWaiters;
}

/** The adaptive state of one (account, group): the limit after the last decrease, and when it was. */
export interface AdaptiveState {
  /** Slots usable right after the last decrease (1 … slots). */
  lowered: number;
  /** Epoch ms of the last decrease. */
  loweredAt: number;
}

/** Additive increase: one slot back per this many ms without a 429. */
export const ADAPTIVE_INCREASE_EVERY_MS = 2_000;

/**
 * The effective slot count at `now` (additive increase, computed lazily): the lowered value plus one
 * per quiet step since, capped at the configured slots. No state = the configured slots.
 */
export function effectiveSlots(
  state: AdaptiveState | undefined,
  now: number,
  slots: number,
  increaseEveryMs = ADAPTIVE_INCREASE_EVERY_MS,
): number {
  if (!state) return slots;
  const steps = Math.floor(Math.max(0, now - state.loweredAt) / increaseEveryMs);
  return Math.max(1, Math.min(slots, state.lowered + steps));
}

/**
 * Multiplicative decrease on a 429 that still arrived (another client of the account): halve the
 * effective slots, never below 1 — once per window, since the calls already in flight when the
 * upstream began refusing all meet the same wall (as TCP halves once per round trip).
 */
export function lowerOn429(
  state: AdaptiveState | undefined,
  now: number,
  limits: Pick<BudgetLimits, "slots" | "windowMs">,
  increaseEveryMs = ADAPTIVE_INCREASE_EVERY_MS,
): AdaptiveState | undefined {
  if (state && now - state.loweredAt < limits.windowMs) return undefined;
  const current = effectiveSlots(state, now, limits.slots, increaseEveryMs);
  return { lowered: Math.max(1, Math.floor(current / 2)), loweredAt: now };
}
