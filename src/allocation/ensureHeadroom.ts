import { brandAiCeiling } from "../config/flags.ts";
import {
  dimensionsOverCeiling,
  isEmptyTargets,
  type Need,
  planTopUp,
  totalsAfter,
  totalsOf,
  type Units,
} from "../domain/allocation.ts";
import { ServiceError } from "../domain/errors.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { recordLedgerEntry } from "./recordLedgerEntry.ts";
import { sendTransfer } from "./sendTransfer.ts";
import { toServiceError } from "./upstreamFailures.ts";

export type EnsureResult = { toppedUp: false } | { toppedUp: true; newTotal: Units };

/**
 * spec/allocation.md §3 steps 2–7, for a caller that already holds the sub-workspace's allocation
 * lock: one resources read, the plan, the ceiling, then at most one transfer carrying every short
 * dimension. No parent read: the upstream's 422 insufficient-units answer is the only exhaustion
 * signal. In-flight units are always 0 here because the lock is held across ensure and the
 * metered write (docs/decisions/0001), so the next reader already sees staged units.
 */
export async function ensureHeadroom(
  deps: AllocationDeps,
  target: AllocationTarget,
  need: Need,
  path: TransferPath,
): Promise<EnsureResult> {
  const log = deps.logger.child({
    requestId: target.requestId,
    orgId: target.orgId,
    brandId: target.brandId,
    subWorkspaceId: target.subWorkspaceId,
  });
  const started = deps.clock.now().getTime();

  let resources;
  try {
    resources = await deps.upstream.readResources(target.bearer, target.subWorkspaceId);
  } catch (error) {
    log.warn({ err: error, need }, "allocation: resources read failed");
    throw toServiceError(deps.upstream, error);
  }

  const plan = planTopUp(resources, need);
  if (isEmptyTargets(plan.targets)) {
    deps.events.emit("allocation.headroomCheck", { orgId: target.orgId, outcome: "hot_path" });
    return { toppedUp: false };
  }

  const before = totalsOf(resources);
  const after = totalsAfter(resources, plan.targets);
  const ceiling = brandAiCeiling(deps.env, ({ variable }) =>
    log.warn({ variable }, "allocation: ignoring a malformed brand ceiling (positive integers only)"),
  );
  const overCeiling = dimensionsOverCeiling(plan.targets, ceiling);
  if (overCeiling.length > 0) {
    log.warn(
      { need, required: plan.required, targets: plan.targets, ceiling, dimensions: overCeiling },
      "allocation: top-up would pass the brand ceiling",
    );
    await recordLedgerEntry(deps, target, {
      reason: "topUp",
      before,
      after,
      outcome: "rejected",
      errorCode: "brandAiLimit",
    });
    deps.events.emit("allocation.rejection", { orgId: target.orgId, reason: "brandAiLimit" });
    throw new ServiceError("brandAiLimit", { details: { dimensions: overCeiling } });
  }

  try {
    await sendTransfer(deps, target, plan.targets, path);
  } catch (error) {
    const mapped = toServiceError(deps.upstream, error);
    const errorCode = mapped instanceof ServiceError ? mapped.code : "unexpected";
    log.warn(
      { err: error, need, required: plan.required, before, targets: plan.targets, errorCode },
      "allocation: top-up transfer failed",
    );
    await recordLedgerEntry(deps, target, { reason: "topUp", before, after, outcome: "failed", errorCode });
    if (errorCode === "orgPoolExhausted" || errorCode === "workspaceBusy") {
      deps.events.emit("allocation.rejection", { orgId: target.orgId, reason: errorCode });
    }
    throw mapped;
  }

  await recordLedgerEntry(deps, target, { reason: "topUp", before, after, outcome: "applied" });
  log.info({ need, required: plan.required, before, after }, "allocation: topped up");
  deps.events.emit("allocation.headroomCheck", { orgId: target.orgId, outcome: "topped_up" });
  deps.events.emit("allocation.topUp", {
    orgId: target.orgId,
    path: path === "patient" ? "settle" : "fail_fast",
    durationSeconds: (deps.clock.now().getTime() - started) / 1000,
  });
  return { toppedUp: true, newTotal: after };
}
