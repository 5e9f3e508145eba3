import type { AllocationDeps, AllocationTarget, TransferPath } from "../../src/allocation/allocationDeps.ts";
import { ensureHeadroom, type EnsureResult } from "../../src/allocation/ensureHeadroom.ts";
import type { Need } from "../../src/domain/allocation.ts";

/**
 * `ensureHeadroom` on its own, under the sub-workspace's allocation lock as its contract asks:
 * what a guard's section runs before its writes, and again after a metered-quota 405. The tests
 * of the top-up rules drive it here and read its result; the guard itself is driven through its
 * sections.
 */
export function ensureUnderLock(
  deps: AllocationDeps,
  target: AllocationTarget,
  need: Need,
  path: TransferPath = "failFast",
): Promise<EnsureResult> {
  return deps.lock.withLock(target.subWorkspaceId, () => ensureHeadroom(deps, target, need, path));
}
