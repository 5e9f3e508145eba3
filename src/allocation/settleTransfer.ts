import { DIMENSIONS, type TransferTargets } from "../domain/allocation.ts";
import type { AllocationDeps, AllocationTarget } from "./allocationDeps.ts";
import { observeResources } from "./resourcesRecord.ts";

/** What a read says of a transfer whose answer was lost. */
export type TransferSettlement = "applied" | "notApplied" | "unknown";

/**
 * A transfer that failed ambiguously — a 5xx, a timeout or a dropped connection, after the
 * client's own retries — may have committed upstream (a 504 in front of a committed write). The
 * ledger must not call it failed then. Transfers are absolute, so one read
 * of the sub-workspace's totals settles it: every targeted dimension at its target → `applied`,
 * any other → `notApplied`; the read failing as well → `unknown` (recorded so, never guessed).
 */
export function isAmbiguousTransferFailure(deps: Pick<AllocationDeps, "upstream">, error: unknown): boolean {
  return deps.upstream.failureKind(error) === "unavailable";
}

export async function settleTransferByRead(
  deps: Pick<AllocationDeps, "db" | "clock" | "events" | "logger" | "upstream" | "env">,
  target: AllocationTarget,
  targets: TransferTargets,
): Promise<TransferSettlement> {
  try {
    const resources = await observeResources(deps, {
      orgId: target.orgId,
      bearer: target.bearer,
      workspaceId: target.subWorkspaceId,
    });
    const applied = DIMENSIONS.every(
      (dimension) => targets[dimension] === undefined || resources[dimension].total === targets[dimension],
    );
    return applied ? "applied" : "notApplied";
  } catch (error) {
    deps.logger.warn(
      { err: error, subWorkspaceId: target.subWorkspaceId },
      "allocation: could not settle a transfer by a read",
    );
    return "unknown";
  }
}
