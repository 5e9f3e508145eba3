import { DIMENSIONS, type PerDimension, type SimWorkspace, type UnitCounts } from "./store/types.ts";

export type TransferPlan = { ok: true; deltas: PerDimension<number> } | { ok: false };

/**
 * An absolute transfer (spec/gateway.md §3): each named dimension is set to its value; `delta` is
 * taken from (or returned to) the parent's total. All or nothing: any dimension asking more than the
 * parent's free units (`total − used`, drafted not counted, exactly as the spec states it) refuses the
 * whole call. A dimension set to 0 is ignored silently, as live does.
 */
export function planTransfer(
  child: PerDimension<UnitCounts>,
  parent: PerDimension<UnitCounts>,
  requested: Partial<PerDimension<number>>,
): TransferPlan {
  const deltas = { projects: 0, prompts: 0 };
  for (const dimension of DIMENSIONS) {
    const value = requested[dimension];
    if (value === undefined || value === 0) continue;
    const delta = value - child[dimension].total;
    if (delta > parent[dimension].total - parent[dimension].used) return { ok: false };
    deltas[dimension] = delta;
  }
  return { ok: true, deltas };
}

/** Moves the planned deltas; a raise opens the enforcement lag window on the child. */
export function applyTransfer(
  child: SimWorkspace,
  parent: SimWorkspace,
  deltas: PerDimension<number>,
  now: number,
  enforcementLagMs: number,
): void {
  for (const dimension of DIMENSIONS) {
    const delta = deltas[dimension];
    if (delta === 0) continue;
    const counts = child.resources[dimension];
    if (delta > 0 && enforcementLagMs > 0) {
      const open = child.enforcement[dimension];
      const enforced = open && now < open.until ? Math.min(open.previousTotal, counts.total) : counts.total;
      child.enforcement[dimension] = { previousTotal: enforced, until: now + enforcementLagMs };
    }
    counts.total += delta;
    parent.resources[dimension].total -= delta;
  }
}
