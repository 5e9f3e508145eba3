import { insertLedgerEntry } from "../db/allocation/insertLedgerEntry.ts";
import type { LedgerReason } from "../db/allocation/ledgerEntryRow.ts";
import {
  DIMENSIONS,
  totalsAfter,
  totalsOf,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
} from "../domain/allocation.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { announced } from "./announced.ts";
import { type KnownPoolFree, learnFromRefusal, poolLowering, returnedUnits } from "./poolFreeBounds.ts";
import { observeResources, recordTransfer } from "./resourcesRecord.ts";

/** The settle path's waits after successive "workspace not ready" answers (spec/operations.md §1). */
const NOT_READY_BACKOFF_MS = [1_000, 2_000, 3_000] as const;

export interface TransferRequest {
  /** The ledger's reason: the step of a top-up, a release, a sibling lowered by rebalancing. */
  reason: LedgerReason;
  /** The read the transfer was planned from (its totals are the ledger's `before`). */
  resources: WorkspaceResources;
  targets: TransferTargets;
  path: TransferPath;
  /** What was known of the pool before the transfer (a refusal is learned against it). */
  known?: KnownPoolFree;
  /** The ledger's code for a failure (each caller classifies failures its own way). */
  errorCodeOf: (error: unknown) => string;
}

/** What a read says of a transfer whose answer was lost. */
type Settlement = "applied" | "notApplied" | "unknown";

/** A transfer's end: applied (perhaps known only by the read after a lost answer), or not. */
type TransferOutcome =
  | { applied: true; lostAnswer?: { error: unknown; errorCode: string } }
  | { applied: false; error: unknown; errorCode: string; settled?: Exclude<Settlement, "applied"> };

/**
 * The one path every transfer takes — a top-up's steps, a release, a sibling lowered by
 * rebalancing (spec/allocation.md §3, docs/decisions/0033):
 * 1. **send** one absolute transfer from the read's totals to `targets` (never a 0: upstream ignores
 *    it silently, so it could only hide a bug). A lowering is announced before it is sent (and not
 *    sent when that cannot be written), a refusal for insufficient units is learned after: the one
 *    place every transfer passes. On the settle path a not-ready answer is retried with 1/2/3 s
 *    backoff through the clock; on the fail-fast path every failure propagates at once;
 * 2. **settle a lost answer** by one read: a 5xx, a timeout or a dropped connection (after the
 *    client's own retries) may hide a commit. Transfers are absolute, so the totals say: every
 *    targeted dimension at its target → applied, any other → `notApplied`, the read failing too →
 *    `unknown` (recorded so, never guessed; never `failed` for a transfer that committed);
 * 3. **record** what happened on the resources record, and one ledger row.
 * Never throws for the transfer's own failure: the caller decides what a failure means for it.
 */
export async function transferAndRecord(
  deps: AllocationDeps,
  at: AllocationTarget,
  request: TransferRequest,
): Promise<TransferOutcome> {
  const { reason, resources, targets } = request;
  const before = totalsOf(resources);
  const after = totalsAfter(resources, targets);
  const startedAt = deps.clock.now();
  try {
    await send(deps, at, request, before);
  } catch (error) {
    const errorCode = request.errorCodeOf(error);
    const settled =
      deps.upstream.failureKind(error) === "unavailable" ? await settleByRead(deps, at, targets) : undefined;
    if (settled === "applied") {
      await recordTransfer(deps, at, resources, targets, startedAt);
      await recordLedgerEntry(deps, at, { reason, before, after, outcome: "applied", errorCode });
      return { applied: true, lostAnswer: { error, errorCode } };
    }
    await recordLedgerEntry(deps, at, { reason, before, after, outcome: settled ?? "failed", errorCode });
    return { applied: false, error, errorCode, settled };
  }
  await recordTransfer(deps, at, resources, targets, startedAt);
  await recordLedgerEntry(deps, at, { reason, before, after, outcome: "applied" });
  return { applied: true };
}

async function send(
  deps: AllocationDeps,
  target: AllocationTarget,
  { targets, path, known }: TransferRequest,
  before: Units,
): Promise<void> {
  for (const dimension of DIMENSIONS) {
    const value = targets[dimension];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new RangeError(`refusing to transfer ${dimension}=${value}: totals must be positive integers`);
    }
  }
  const sendLearning = async () => {
    const sentAtMs = monotonicMsOf(deps.clock);
    try {
      for (let retry = 0; ; retry++) {
        try {
          return await deps.upstream.transfer(target.bearer, target.subWorkspaceId, targets);
        } catch (error) {
          const backoff = NOT_READY_BACKOFF_MS[retry];
          const notReady = deps.upstream.failureKind(error) === "workspaceNotReady";
          if (path !== "settle" || backoff === undefined || !notReady) throw error;
          deps.events.emit("allocation.notReadyRetry", { orgId: target.orgId });
          await deps.clock.sleep(backoff);
        }
      }
    } catch (error) {
      if (deps.upstream.failureKind(error) === "poolExhausted") {
        await learnFromRefusal(deps, target, { before, targets, sentAtMs, known });
      }
      throw error;
    }
  };
  const returning = returnedUnits(before, targets);
  if (Object.keys(returning).length === 0) return sendLearning();
  return announced(deps, poolLowering(deps, target.orgId, returning), sendLearning);
}

async function settleByRead(
  deps: AllocationDeps,
  target: AllocationTarget,
  targets: TransferTargets,
): Promise<Settlement> {
  try {
    const resources = await observeResources(deps, target, target.subWorkspaceId);
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

/**
 * Records one transfer attempt (also a top-up step not sent, ensureHeadroom.ts). Best effort: the
 * transfer already happened (or failed) upstream, and a ledger write failing must not turn a
 * successful top-up into a failed request.
 */
export async function recordLedgerEntry(
  deps: Pick<AllocationDeps, "db" | "clock" | "logger">,
  target: AllocationTarget,
  entry: {
    reason: LedgerReason;
    before: Units | null;
    after: Units | null;
    outcome: "applied" | "failed" | "rejected" | Settlement;
    errorCode?: string | null;
  },
): Promise<void> {
  try {
    await insertLedgerEntry(deps.db, {
      orgId: target.orgId,
      brandId: target.brandId,
      subWorkspaceId: target.subWorkspaceId,
      reason: entry.reason,
      before: entry.before,
      after: entry.after,
      outcome: entry.outcome,
      errorCode: entry.errorCode ?? null,
      requestId: target.requestId,
      now: deps.clock.now(),
    });
  } catch (error) {
    deps.logger.error(
      { err: error, subWorkspaceId: target.subWorkspaceId, reason: entry.reason, outcome: entry.outcome },
      "allocation ledger write failed",
    );
  }
}
