import { insertLedgerEntry } from "../db/allocation/insertLedgerEntry.ts";
import type { LedgerReason } from "../db/allocation/ledgerEntryRow.ts";
import type { Units } from "../domain/allocation.ts";
import type { AllocationDeps, AllocationTarget } from "./allocationDeps.ts";

/**
 * `notApplied` / `unknown`: a transfer whose answer was lost, settled by a read (not applied), or
 * not even that (the read failed too) — never `failed` for a transfer that committed.
 */
export type LedgerOutcome = "applied" | "failed" | "rejected" | "notApplied" | "unknown";

/**
 * Records one transfer attempt. Best effort: the transfer already happened (or failed) upstream,
 * and a ledger write failing must not turn a successful top-up into a failed request.
 */
export async function recordLedgerEntry(
  deps: Pick<AllocationDeps, "db" | "clock" | "logger">,
  target: AllocationTarget,
  entry: {
    reason: LedgerReason;
    before: Units | null;
    after: Units | null;
    outcome: LedgerOutcome;
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
