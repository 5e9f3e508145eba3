import type { Principal } from "../auth/principal.ts";
import type { LedgerEntryRow } from "../db/allocation/ledgerEntryRow.ts";
import { listLedgerEntries } from "../db/allocation/listLedgerEntries.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { createAllocationGuard } from "./allocationGuard.ts";
import { type ReleaseOptions, type ReleaseReport, releaseSurplusLocked } from "./releaseSurplus.ts";
import { releaseErrorCodeOf } from "./upstreamFailures.ts";

export type LedgerEntry = LedgerEntryRow;

export interface LedgerQuery {
  brandId?: string;
  /** 1..200, default 50. */
  limit?: number;
  /** Only entries with an id below this (the `nextBefore` of the previous page). */
  before?: number;
}

export interface LedgerPage {
  items: LedgerEntry[];
  /** Pass as `before` for the next page; `null` on the last page. */
  nextBefore: number | null;
}

export const LEDGER_DEFAULT_LIMIT = 50;
export const LEDGER_MAX_LIMIT = 200;
export interface AllocationServiceDeps extends AllocationDeps {
  orgs: OrgService;
}

/** Entry points of allocation for the API, the worker and the CLI. */
export class AllocationService {
  constructor(private readonly deps: AllocationServiceDeps) {}

  /**
   * The metered-write seam's guards (src/domain/meteredWrites.ts), one per request or job and
   * sub-workspace: the composition root hands this factory to every operation that writes upstream.
   */
  readonly meteredWrites: MeteredWriteGuardFactory = (context) => createAllocationGuard(this.deps, context);

  /**
   * §7 for operators (the sweep; the settle transfer path by default): under the sub-workspace's lock,
   * whatever the kill switch says — an operator asked for it explicitly. Never throws for upstream
   * or lock failures: the report carries a typed `errorCode`, absent when the failure is unexpected.
   */
  async releaseSurplus(
    target: AllocationTarget,
    options: ReleaseOptions & { path?: TransferPath },
  ): Promise<ReleaseReport> {
    try {
      return await this.deps.lock.withLock(target.subWorkspaceId, () =>
        releaseSurplusLocked(this.deps, target, options, options.path ?? "settle"),
      );
    } catch (error) {
      const errorCode = releaseErrorCodeOf(this.deps.upstream, error);
      this.deps.logger.warn(
        { err: error, errorCode, subWorkspaceId: target.subWorkspaceId },
        "allocation: release could not run",
      );
      this.deps.events.emit("allocation.release", { orgId: target.orgId, outcome: "error" });
      return { outcome: "error", subWorkspaceId: target.subWorkspaceId, requiresDecommission: [], errorCode };
    }
  }

  /** The org's transfer history, newest first (`GET …/serenity/allocation-ledger`). */
  async listLedger(principal: Principal, orgId: string, query: LedgerQuery = {}): Promise<LedgerPage> {
    await this.deps.orgs.getAccessible(principal, orgId);
    const limit = Math.min(Math.max(1, Math.trunc(query.limit ?? LEDGER_DEFAULT_LIMIT)), LEDGER_MAX_LIMIT);
    const items = await listLedgerEntries(this.deps.db, orgId, {
      brandId: query.brandId,
      before: query.before,
      limit,
    });
    return { items, nextBefore: items.length === limit ? (items.at(-1)?.id ?? null) : null };
  }
}
