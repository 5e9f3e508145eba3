import {
  DIMENSIONS,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
  ZERO_UNITS,
} from "./allocation.ts";

/**
 * Rebalancing (spec/allocation.md §11 step 2) as pure rules: which sibling sub-workspaces give up
 * how much of their slack so a top-up that the pool refused can be retried. No I/O: the caller
 * reads the siblings under their own locks and applies the plan.
 */

/**
 * The lowest total rebalancing leaves a sibling, per dimension: the minimum expressible allocation
 * (a transfer to 0 is ignored upstream). Usage always comes on top: a sibling keeps at least
 * `used + drafted` (its in-flight need is 0 while we hold its lock: docs/decisions/0001).
 */
export const REBALANCE_FLOOR: Readonly<Units> = { projects: 1, prompts: 1 };

/** Allocation a sibling can give up: `total − max(floor, used + drafted + inFlight)`, never negative. */
export function siblingSlack(
  resources: WorkspaceResources,
  floor: Units = REBALANCE_FLOOR,
  inFlight: Partial<Units> = {},
): Units {
  const slack = { ...ZERO_UNITS };
  for (const dimension of DIMENSIONS) {
    const { used, drafted, total } = resources[dimension];
    const keep = Math.max(floor[dimension], used + drafted + (inFlight[dimension] ?? 0));
    slack[dimension] = Math.max(0, total - keep);
  }
  return slack;
}

export interface RebalanceCandidate {
  /** The sibling's sub-workspace id (ties in slack are broken by it, so the plan is deterministic). */
  id: string;
  resources: WorkspaceResources;
}

export interface SiblingLowering {
  id: string;
  /** Absolute totals to transfer: only the dimensions lowered. */
  targets: TransferTargets;
  reclaimed: Units;
}

export interface RebalancePlan {
  /** The siblings to lower, one transfer each. */
  lowered: SiblingLowering[];
  /** Σ reclaimed per dimension: at most `shortfall`, less only when the slack runs out. */
  reclaimed: Units;
}

/**
 * Per dimension, takes from the siblings with the largest slack first, and only what `shortfall`
 * asks for (the last sibling touched gives up part of its slack). A sibling lowered in both
 * dimensions gets one transfer carrying both. A target is never below the sibling's
 * `max(floor, used + drafted)`, so it is never 0.
 */
export function planRebalance(
  candidates: readonly RebalanceCandidate[],
  shortfall: Units,
  floor: Units = REBALANCE_FLOOR,
): RebalancePlan {
  const byId = new Map<string, SiblingLowering>();
  const reclaimed = { ...ZERO_UNITS };
  const slacks = candidates.map((candidate) => ({
    candidate,
    slack: siblingSlack(candidate.resources, floor),
  }));
  for (const dimension of DIMENSIONS) {
    let left = Math.max(0, shortfall[dimension]);
    const order = [...slacks].sort(
      (a, b) =>
        b.slack[dimension] - a.slack[dimension] ||
        (a.candidate.id < b.candidate.id ? -1 : a.candidate.id > b.candidate.id ? 1 : 0),
    );
    for (const { candidate, slack } of order) {
      if (left === 0) break;
      const take = Math.min(left, slack[dimension]);
      if (take === 0) continue;
      const entry = byId.get(candidate.id) ?? {
        id: candidate.id,
        targets: {},
        reclaimed: { ...ZERO_UNITS },
      };
      entry.targets[dimension] = candidate.resources[dimension].total - take;
      entry.reclaimed[dimension] = take;
      byId.set(candidate.id, entry);
      reclaimed[dimension] += take;
      left -= take;
    }
  }
  return { lowered: [...byId.values()], reclaimed };
}
