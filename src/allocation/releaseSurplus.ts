import { findLastPublish } from "../db/allocation/findLastPublish.ts";
import type { LastPublish } from "../db/allocation/findLastPublishes.ts";
import type { LedgerReason } from "../db/allocation/ledgerEntryRow.ts";
import {
  type Dimension,
  isEmptyTargets,
  planRelease,
  totalsAfter,
  totalsOf,
  type Units,
} from "../domain/allocation.ts";
import {
  type AllocationDeps,
  type AllocationTarget,
  targetLogger,
  type TransferPath,
} from "./allocationDeps.ts";
import { publishWindowOf, withinPublishBound } from "./publishBound.ts";
import { observeResources } from "./resourcesRecord.ts";
import { transferAndRecord } from "./transferAndRecord.ts";
import { type ReleaseErrorCode, releaseErrorCodeOf } from "./upstreamFailures.ts";

export type ReleaseOutcome =
  "released" | "nothingToRelease" | "requiresDecommission" | "dryRun" | "deferred" | "error";

export interface ReleaseOptions {
  floor: Units;
  dryRun?: boolean;
  /** Ledger reason: `release` (request paths), `sweep` (operator), `deactivate` (brand deactivation). */
  reason?: Exclude<LedgerReason, "topUp" | "exact" | "rebalance">;
}

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
 *
 * Within the publish lag window (a publish into the sub-workspace less than
 * SERENITY_PUBLISH_LAG_MS ago) the read could show `used` without the published units, and a
 * plan from it could lower the total below real usage. When Serenity recorded that publish with
 * its bound (docs/decisions/0030), the release plans from `used` raised to the bound; otherwise —
 * or when the read shows usage the bound cannot explain — the release is `deferred` (no transfer)
 * and left to the next release or the sweep (ADR 0001 addendum). Deactivation is not
 * deferred: it releases after deleting every project of the sub-workspace, so no usage is left
 * for a read to miss.
 */
export async function releaseSurplusLocked(
  deps: AllocationDeps,
  target: AllocationTarget,
  options: ReleaseOptions,
  path: TransferPath,
): Promise<ReleaseReport> {
  const reason = options.reason ?? "release";
  const log = targetLogger(deps, target);
  const report = (fields: Omit<ReleaseReport, "subWorkspaceId">): ReleaseReport => {
    deps.events.emit("allocation.release", { orgId: target.orgId, outcome: fields.outcome });
    return { subWorkspaceId: target.subWorkspaceId, ...fields };
  };

  let lastPublish: LastPublish | undefined;
  if (reason !== "deactivate") {
    try {
      lastPublish = await findLastPublish(deps.db, target.subWorkspaceId, publishWindowOf(deps));
    } catch (error) {
      log.warn({ err: error, reason }, "allocation: release could not read the last publish");
      return report({ outcome: "error", requiresDecommission: [] });
    }
    if (lastPublish?.inWindow && !lastPublish.bound) {
      log.info(
        { reason, publishedAt: lastPublish.publishedAt },
        "allocation: release deferred: usage may still lag a publish",
      );
      return report({ outcome: "deferred", requiresDecommission: [] });
    }
  }

  let read;
  try {
    read = await observeResources(deps, target, target.subWorkspaceId);
  } catch (error) {
    const errorCode = releaseErrorCodeOf(deps.upstream, error);
    log.warn({ err: error, errorCode, reason }, "allocation: release read failed");
    return report({ outcome: "error", errorCode, requiresDecommission: [] });
  }
  // Inside the window of a publish Serenity recorded with its bound, the plan counts `used` as that
  // bound allows (docs/decisions/0030); a read it cannot explain defers, as without a bound.
  const resources = withinPublishBound(read, lastPublish);
  if (!resources) {
    log.info({ reason, read, bound: lastPublish?.bound }, "allocation: release deferred: usage unexplained");
    return report({ outcome: "deferred", requiresDecommission: [] });
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

  const outcome = await transferAndRecord(deps, target, {
    reason,
    resources,
    targets: plan.targets,
    path,
    errorCodeOf: (error) => releaseErrorCodeOf(deps.upstream, error) ?? "unexpected",
  });
  if (!outcome.applied) {
    const errorCode = releaseErrorCodeOf(deps.upstream, outcome.error);
    log.warn(
      { err: outcome.error, errorCode, reason, before, targets: plan.targets, settled: outcome.settled },
      "allocation: release failed",
    );
    return report({ outcome: "error", errorCode, ...planned, after: before, returned: undefined });
  }
  if (outcome.lostAnswer) {
    log.warn(
      { err: outcome.lostAnswer.error, reason, before, targets: plan.targets },
      "allocation: release applied (settled by a read after a lost answer)",
    );
  }
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
