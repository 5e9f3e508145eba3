import type { Principal } from "../auth/principal.ts";
import type { LedgerEntryRow } from "../db/allocation/ledgerEntryRow.ts";
import { listLedgerEntries } from "../db/allocation/listLedgerEntries.ts";
import { findOrgById } from "../db/orgs/findOrgById.ts";
import type { OrgRow } from "../db/orgs/orgRow.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { createAllocationGuard } from "./allocationGuard.ts";
import { meteringReadsSettled, readParentMetering } from "./parentMetering.ts";
import type { PoolHistoryRecorder } from "./poolHistory.ts";
import { type PoolView, poolViewMaxAgeMs } from "./poolView.ts";
import { type PoolRefreshPacing, PoolViews } from "./poolViews.ts";
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
  /** Offered every fresh read of an org's pool (the console's pool-over-time chart). */
  history?: PoolHistoryRecorder;
  /** How the pool view's background refresh spreads its reads (tests and benchmarks set it). */
  poolRefreshPacing?: Partial<PoolRefreshPacing>;
}

/** Entry points of allocation for the API, the worker and the CLI. */
export class AllocationService {
  readonly #poolViews: PoolViews;

  constructor(private readonly deps: AllocationServiceDeps) {
    this.#poolViews = new PoolViews(deps, deps.poolRefreshPacing);
  }

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

  /**
   * The pool view (`GET …/serenity/resources`) from the resources record, after the tenancy check:
   * no upstream call while every entry is younger than SERENITY_POOL_VIEW_MAX_AGE_MS; older ones
   * are served at once and refreshed in the background with the caller's bearer (PoolViews).
   */
  async poolView(principal: Principal, orgId: string): Promise<PoolView> {
    const org = await this.deps.orgs.getAccessible(principal, orgId);
    return this.#poolViews.view(org, principal.bearer);
  }

  /**
   * The pool view for the periodic sampler (`refresh: "stale"`, the default: only entries past the
   * max age are read) and the audit (`"all"`: every entry read now), without a tenancy check. Both
   * write what they read to the record; a read of the parent also offers the pool history a sample
   * and sets the pool-free gauge (poolViewReads.ts, the one place either happens).
   */
  async samplePool(org: OrgRow, bearer: string, refresh: "stale" | "all" = "stale"): Promise<PoolView> {
    // The parent's metering first (spec/allocation.md §13), so the view answered shows this read;
    // like the entries, only once it is older than the view's max age (or unknown) unless `all`.
    if (refresh === "all" || (await this.#meteringIsStale(org.id))) {
      await readParentMetering(this.deps, org, bearer, "sampler");
    }
    return this.#poolViews.sample(org, bearer, refresh);
  }

  async #meteringIsStale(orgId: string): Promise<boolean> {
    const asOf = (await findOrgById(this.deps.db, orgId))?.metering.asOf;
    return !asOf || this.deps.clock.now().getTime() - asOf.getTime() >= poolViewMaxAgeMs(this.deps.env);
  }

  /**
   * Resolves once the background reads of this process have ended: the pool view's refreshes and
   * the metering reads guarded writes started (tests, shutdown).
   */
  async poolViewRefreshesSettled(): Promise<void> {
    await Promise.all([this.#poolViews.settled(), meteringReadsSettled()]);
  }
}
