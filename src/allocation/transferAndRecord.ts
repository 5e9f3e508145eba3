import type { LedgerReason } from "../db/allocation/ledgerEntryRow.ts";
import {
  totalsAfter,
  totalsOf,
  type TransferTargets,
  type WorkspaceResources,
} from "../domain/allocation.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import type { KnownPoolFree } from "./poolFreeBounds.ts";
import { recordLedgerEntry } from "./recordLedgerEntry.ts";
import { recordTransfer } from "./resourcesRecord.ts";
import { sendTransfer } from "./sendTransfer.ts";
import {
  isAmbiguousTransferFailure,
  settleTransferByRead,
  type TransferSettlement,
} from "./settleTransfer.ts";

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

/** A transfer's end: applied (perhaps known only by the read after a lost answer), or not. */
export type TransferOutcome =
  | { applied: true; lostAnswer?: { error: unknown; errorCode: string } }
  | { applied: false; error: unknown; errorCode: string; settled?: Exclude<TransferSettlement, "applied"> };

/**
 * The one path every transfer takes — a top-up's steps, a release, a sibling lowered by
 * rebalancing: send it (sendTransfer.ts: the pool's free bounds, the not-ready retries), settle a
 * lost answer by one read (a 504 may hide a commit; transfers are absolute, so the totals say), then
 * write what happened to the resources record and one ledger row. Never throws for the transfer's
 * own failure: the caller decides what a failure means for it.
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
    await sendTransfer(deps, at, targets, request.path, before, request.known);
  } catch (error) {
    const errorCode = request.errorCodeOf(error);
    const settled = isAmbiguousTransferFailure(deps, error)
      ? await settleTransferByRead(deps, at, targets)
      : undefined;
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
