import { DIMENSIONS, type TransferTargets, type Units } from "../domain/allocation.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { announced } from "./announced.ts";
import { type KnownPoolFree, learnFromRefusal, poolLowering, returnedUnits } from "./poolFreeBounds.ts";

/** The settle path's waits after successive "workspace not ready" answers (spec/operations.md §1). */
export const NOT_READY_BACKOFF_MS = [1_000, 2_000, 3_000] as const;

/**
 * Sends one absolute transfer of `target` from the totals `before` (the read it was planned from)
 * to `targets`. A 0 is never sent (upstream ignores it silently, so it could only hide a bug). On
 * the settle path a not-ready answer is retried with 1/2/3 s backoff through the clock; on the
 * fail-fast path every failure propagates at once. What a transfer tells of the org's pool is
 * learned here, the one place every transfer passes (poolFreeBounds.ts): a lowering is announced
 * before it is sent (and is not sent when that cannot be written), a refusal remembered after.
 */
export async function sendTransfer(
  deps: Pick<AllocationDeps, "upstream" | "clock" | "events" | "db" | "env" | "logger">,
  target: AllocationTarget,
  targets: TransferTargets,
  path: TransferPath,
  before: Units,
  /** What was known of the pool, read before this transfer: a refusal is learned against it. */
  known?: KnownPoolFree,
): Promise<void> {
  for (const dimension of DIMENSIONS) {
    const value = targets[dimension];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new RangeError(`refusing to transfer ${dimension}=${value}: totals must be positive integers`);
    }
  }
  const send = async () => {
    const sentAtMs = monotonicMsOf(deps.clock);
    try {
      await sendWithRetries(deps, target, targets, path);
    } catch (error) {
      if (deps.upstream.failureKind(error) === "poolExhausted") {
        await learnFromRefusal(deps, target, { before, targets, sentAtMs, known });
      }
      throw error;
    }
  };
  const returning = returnedUnits(before, targets);
  if (Object.keys(returning).length === 0) return send();
  return announced(deps, poolLowering(deps, target.orgId, returning), send);
}

async function sendWithRetries(
  deps: Pick<AllocationDeps, "upstream" | "clock" | "events">,
  target: AllocationTarget,
  targets: TransferTargets,
  path: TransferPath,
): Promise<void> {
  for (let retry = 0; ; retry++) {
    try {
      await deps.upstream.transfer(target.bearer, target.subWorkspaceId, targets);
      return;
    } catch (error) {
      const backoff = NOT_READY_BACKOFF_MS[retry];
      if (
        path !== "settle" ||
        backoff === undefined ||
        deps.upstream.failureKind(error) !== "workspaceNotReady"
      ) {
        throw error;
      }
      deps.events.emit("allocation.notReadyRetry", { orgId: target.orgId });
      await deps.clock.sleep(backoff);
    }
  }
}
