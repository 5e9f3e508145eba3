import type { LedgerReason } from "../db/allocation/insertLedgerEntry.ts";
import {
  type Dimension,
  DIMENSIONS,
  isEmptyTargets,
  planRelease,
  totalsAfter,
  totalsOf,
  type Units,
} from "../domain/allocation.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { recordLedgerEntry } from "./recordLedgerEntry.ts";
import { sendTransfer } from "./sendTransfer.ts";
import { type ReleaseErrorCode, releaseErrorCodeOf } from "./upstreamFailures.ts";

export type ReleaseOutcome = "released" | "nothingToRelease" | "requiresDecommission" | "dryRun" | "error";

export interface ReleaseOptions {
  floor: Units;
  dryRun?: boolean;
  /** Ledger reason: `release` (request paths), `sweep` (operator), `deactivate` (brand deactivation). */
  reason?: Exclude<LedgerReason, "topUp">;
}

/** Floors of spec/allocation.md §7. */
export const RELEASE_FLOOR: Readonly<Units> = { projects: 1, prompts: 100 };
/** The minimum expressible allocation: a transfer to 0 is ignored upstream. */
export const DEACTIVATION_FLOOR: Readonly<Units> = { projects: 1, prompts: 1 };

export interface ReleaseReport {
  outcome: ReleaseOutcome;
  subWorkspaceId: string;
  /** Totals read before the release (absent when the read failed). */
  before?: Units;
  /** What each dimension should keep: `max(floor, roundUpToBlock(used + drafted))`. */
  target?: Units;
  /** Totals after the release (equal to `before` for a dry run or nothing to release). */
  after?: Units;
  /** Units given back to the pool per dimension (what a dry run would give back). */
  returned?: Units;
  /** Dimensions that would have to reach 0: left alone. */
  requiresDecommission: Dimension[];
  /** Set with outcome `error`; absent for an unexpected (unclassified) failure. */
  errorCode?: ReleaseErrorCode;
}

function difference(before: Units, after: Units): Units {
  return { projects: before.projects - after.projects, prompts: before.prompts - after.prompts };
}

/**
 * §7 for a caller holding the sub-workspace's lock: one read, the plan, and at most one transfer
 * lowering every releasable dimension. Failures are reported (never thrown) with a typed code, so
 * request paths stay best effort and batch callers can classify them.
 */
export async function releaseSurplusLocked(
  deps: AllocationDeps,
  target: AllocationTarget,
  options: ReleaseOptions,
  path: TransferPath,
): Promise<ReleaseReport> {
  const reason = options.reason ?? "release";
  const log = deps.logger.child({
    requestId: target.requestId,
    orgId: target.orgId,
    brandId: target.brandId,
    subWorkspaceId: target.subWorkspaceId,
  });
  const report = (fields: Omit<ReleaseReport, "subWorkspaceId">): ReleaseReport => {
    deps.events.emit("allocation.release", { orgId: target.orgId, outcome: fields.outcome });
    return { subWorkspaceId: target.subWorkspaceId, ...fields };
  };

  let resources;
  try {
    resources = await deps.upstream.readResources(target.bearer, target.subWorkspaceId);
  } catch (error) {
    const errorCode = releaseErrorCodeOf(deps.upstream, error);
    log.warn({ err: error, errorCode, reason }, "allocation: release read failed");
    return report({ outcome: "error", errorCode, requiresDecommission: [] });
  }

  const plan = planRelease(resources, options.floor);
  const before = totalsOf(resources);
  const after = totalsAfter(resources, plan.targets);
  const planned = {
    before,
    target: plan.keep,
    returned: difference(before, after),
    requiresDecommission: plan.requiresDecommission,
  };
  if (options.dryRun) return report({ outcome: "dryRun", ...planned, after: before });
  if (isEmptyTargets(plan.targets)) {
    return report({
      outcome: plan.requiresDecommission.length > 0 ? "requiresDecommission" : "nothingToRelease",
      ...planned,
      after: before,
    });
  }

  try {
    await sendTransfer(deps, target, plan.targets, path);
  } catch (error) {
    const errorCode = releaseErrorCodeOf(deps.upstream, error);
    log.warn({ err: error, errorCode, reason, before, targets: plan.targets }, "allocation: release failed");
    await recordLedgerEntry(deps, target, {
      reason,
      before,
      after,
      outcome: "failed",
      errorCode: errorCode ?? "unexpected",
    });
    return report({ outcome: "error", errorCode, ...planned, after: before, returned: undefined });
  }

  await recordLedgerEntry(deps, target, { reason, before, after, outcome: "applied" });
  log.info(
    { reason, before, after, requiresDecommission: plan.requiresDecommission },
    "allocation: released",
  );
  return report({
    outcome: plan.requiresDecommission.length > 0 ? "requiresDecommission" : "released",
    ...planned,
    after,
  });
}

export function sumReturned(reports: ReleaseReport[]): Units {
  const sum = { projects: 0, prompts: 0 };
  for (const report of reports) {
    for (const dimension of DIMENSIONS) sum[dimension] += report.returned?.[dimension] ?? 0;
  }
  return sum;
}
