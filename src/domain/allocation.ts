/**
 * Allocation arithmetic (spec/allocation.md §3, §7): pure rules, no I/O.
 *
 * Terminology (SPEC §2): a sub-workspace's *allocation* is its `total` per dimension; its *usage*
 * is `used` (published) plus `drafted` (staged). A *top-up* raises `total` from the org's pool, a
 * *release* lowers it. Transfers upstream are absolute ("set total to N"), so every plan here is a
 * set of target totals, never a delta. A dimension whose total is already right is omitted from
 * the plan, and no plan ever holds a 0 (upstream silently ignores a transfer to 0).
 */

export const DIMENSIONS = ["projects", "prompts"] as const;

export type Dimension = (typeof DIMENSIONS)[number];

/** The rounding unit of a top-up: whole projects, prompts in hundreds. */
export const BLOCK: Readonly<Record<Dimension, number>> = { projects: 1, prompts: 100 };

export interface DimensionUsage {
  used: number;
  drafted: number;
  total: number;
}

/** A workspace's AI resources as the upstream reports them. */
export type WorkspaceResources = Record<Dimension, DimensionUsage>;

/** Units per dimension (totals, floors, ceilings, stranded units). */
export type Units = Record<Dimension, number>;

/** What a metered write is about to consume, per dimension (absent = 0). */
export type Need = Partial<Units>;

/** Absolute target totals of one transfer: only the dimensions that change. */
export type TransferTargets = Partial<Units>;

export const ZERO_UNITS: Readonly<Units> = { projects: 0, prompts: 0 };

/** What a release keeps at the least (spec/allocation.md §7): one project, one block of prompts. */
export const RELEASE_FLOOR: Readonly<Units> = { projects: 1, prompts: 100 };

/**
 * What deactivation keeps (§7 "deactivate"): the minimum expressible allocation, since a transfer
 * to 0 is ignored upstream.
 */
export const DEACTIVATION_FLOOR: Readonly<Units> = { projects: 1, prompts: 1 };

/** Rounds a whole requirement (not a delta) up to a multiple of the block: 101 prompts → 200. */
export function roundUpToBlock(units: number, block: number): number {
  if (!Number.isInteger(block) || block <= 0) throw new RangeError(`block must be a positive integer`);
  if (units <= 0) return 0;
  return Math.ceil(units / block) * block;
}

/** Headroom of one dimension: what can still be staged before the upstream rejects a write. */
export function headroom(usage: DimensionUsage): number {
  return usage.total - usage.used - usage.drafted;
}

function assertUnits(value: number | undefined, what: string): number {
  const units = value ?? 0;
  if (!Number.isInteger(units) || units < 0) throw new RangeError(`${what} must be a non-negative integer`);
  return units;
}

export interface TopUpPlan {
  /** `used + drafted + need + inFlight` per dimension. */
  required: Units;
  /** Target totals of the dimensions that are short; empty means the hot path (no transfer). */
  targets: TransferTargets;
}

/**
 * §3 step 3: for each dimension, `required = used + drafted + need + inFlight`; when it exceeds
 * `total`, the target is `roundUpToBlock(required)`. Dimensions that are not short are omitted.
 * A target is always ≥ 1 because it is only computed when `required > total ≥ 0`.
 */
export function planTopUp(resources: WorkspaceResources, need: Need, inFlight: Need = {}): TopUpPlan {
  const required = { ...ZERO_UNITS };
  const targets: TransferTargets = {};
  for (const dimension of DIMENSIONS) {
    const { used, drafted, total } = resources[dimension];
    required[dimension] =
      used +
      drafted +
      assertUnits(need[dimension], `need.${dimension}`) +
      assertUnits(inFlight[dimension], `inFlight.${dimension}`);
    if (required[dimension] > total) {
      targets[dimension] = roundUpToBlock(required[dimension], BLOCK[dimension]);
    }
  }
  return { required, targets };
}

/**
 * §11 step 1, the exact top-up: the plan's short dimensions set to `required` itself, without
 * block rounding (blocks are our convenience; transfers take any integer). Never below
 * `required`, so the write still fits; each target is ≥ 1 since `required > total ≥ 0`.
 */
export function exactTargets(plan: TopUpPlan): TransferTargets {
  const targets: TransferTargets = {};
  for (const dimension of DIMENSIONS) {
    if (plan.targets[dimension] !== undefined) targets[dimension] = plan.required[dimension];
  }
  return targets;
}

/** Whether two transfers set the same totals. */
export function sameTargets(a: TransferTargets, b: TransferTargets): boolean {
  return DIMENSIONS.every((dimension) => a[dimension] === b[dimension]);
}

/** What a transfer to `targets` takes from the pool, per dimension (0 where it gives back or omits). */
export function takenFromPool(resources: WorkspaceResources, targets: TransferTargets): Units {
  const taken = { ...ZERO_UNITS };
  for (const dimension of DIMENSIONS) {
    const target = targets[dimension];
    if (target !== undefined) taken[dimension] = Math.max(0, target - resources[dimension].total);
  }
  return taken;
}

/** Per-brand backstop ceilings; an undefined dimension has no ceiling. */
export type Ceiling = Partial<Record<Dimension, number | undefined>>;

/** §3 step 4: the dimensions whose target would pass the brand ceiling. */
export function dimensionsOverCeiling(targets: TransferTargets, ceiling: Ceiling): Dimension[] {
  return DIMENSIONS.filter((dimension) => {
    const target = targets[dimension];
    const limit = ceiling[dimension];
    return target !== undefined && limit !== undefined && target > limit;
  });
}

export interface ReleasePlan {
  /** The total each dimension should keep: `max(floor, roundUpToBlock(used + drafted))`. */
  keep: Units;
  /** Target totals of the dimensions that are lowered (target < total and target > 0). */
  targets: TransferTargets;
  /** Dimensions that would have to reach 0: left alone, reported for decommissioning. */
  requiresDecommission: Dimension[];
}

/**
 * §7: `target = max(floor, roundUpToBlock(used + drafted))` per dimension, counting `drafted` so a
 * staged write never ends up over the limit. Only dimensions with `target < total` are lowered; a
 * dimension whose target is 0 is never sent (upstream ignores it) and is reported instead.
 */
export function planRelease(resources: WorkspaceResources, floor: Units): ReleasePlan {
  const keep = { ...ZERO_UNITS };
  const targets: TransferTargets = {};
  const requiresDecommission: Dimension[] = [];
  for (const dimension of DIMENSIONS) {
    const { used, drafted, total } = resources[dimension];
    keep[dimension] = Math.max(
      assertUnits(floor[dimension], `floor.${dimension}`),
      roundUpToBlock(used + drafted, BLOCK[dimension]),
    );
    if (keep[dimension] >= total) continue;
    if (keep[dimension] === 0) requiresDecommission.push(dimension);
    else targets[dimension] = keep[dimension];
  }
  return { keep, targets, requiresDecommission };
}

/** Allocation that no usage needs: `total − roundUpToBlock(used + drafted)`, never negative. */
export function strandedUnits(resources: WorkspaceResources): Units {
  const stranded = { ...ZERO_UNITS };
  for (const dimension of DIMENSIONS) {
    const { used, drafted, total } = resources[dimension];
    stranded[dimension] = Math.max(0, total - roundUpToBlock(used + drafted, BLOCK[dimension]));
  }
  return stranded;
}

/** The totals of a workspace after a transfer of `targets` (omitted dimensions are untouched). */
export function totalsAfter(resources: WorkspaceResources, targets: TransferTargets): Units {
  return {
    projects: targets.projects ?? resources.projects.total,
    prompts: targets.prompts ?? resources.prompts.total,
  };
}

export function totalsOf(resources: WorkspaceResources): Units {
  return { projects: resources.projects.total, prompts: resources.prompts.total };
}

export function isEmptyTargets(targets: TransferTargets): boolean {
  return DIMENSIONS.every((dimension) => targets[dimension] === undefined);
}
