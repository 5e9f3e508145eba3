import { AsyncLocalStorage } from "node:async_hooks";

import type { UpstreamPriority, UpstreamScope } from "../domain/upstreamBudget.ts";

/**
 * The priority and deadline of the upstream calls made on behalf of one unit of work. The edges set
 * it once — an HTTP request (interactive, its 15 s edge budget), a job delivery (job, the handler's
 * timeout), a background pass (background) — and every gateway call below reads it, so the bearer
 * keeps flowing explicitly while no service signature has to relay priority by hand. A caller can
 * still pass a scope explicitly (`GatewayCallOptions.scope`, `OperationContext.upstream`).
 */
const storage = new AsyncLocalStorage<UpstreamScope>();

/** The edge budget of a synchronous request (spec/allocation.md: about 15 s). */
export const INTERACTIVE_EDGE_BUDGET_MS = 15_000;
/**
 * No call waits longer than this for budget (a caller outside any scope — a CLI tool, a test — and
 * each call of a background pass, whose scope has no deadline of its own).
 */
export const DEFAULT_SCOPE_BUDGET_MS = 60_000;

/**
 * Runs `work` at `priority` with a deadline `budgetMs` from `nowMs`; `since` is when the work began
 * (epoch ms; defaults to `nowMs`): within a priority the budget serves the oldest work first.
 */
export function withUpstreamPriority<T>(
  priority: UpstreamPriority,
  nowMs: number,
  budgetMs: number,
  work: () => T,
  since: number = nowMs,
): T {
  return storage.run({ priority, deadlineAt: nowMs + budgetMs, since }, work);
}

/** Runs a background pass (sampler, reconciler, sweep, audit): lowest priority, a per-call wait bound. */
export function asBackgroundWork<T>(work: () => T): T {
  return storage.run({ priority: "background", deadlineAt: Number.POSITIVE_INFINITY }, work);
}

export function currentUpstreamScope(): UpstreamScope | undefined {
  return storage.getStore();
}
