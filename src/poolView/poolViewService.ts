import type { AllocationDeps } from "../allocation/allocationDeps.ts";
import { meteringReadsSettled, readParentMetering } from "../allocation/parentMetering.ts";
import type { Principal } from "../auth/principal.ts";
import { findOrgById } from "../db/orgs/findOrgById.ts";
import type { OrgRow } from "../db/orgs/orgRow.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { PoolHistoryRecorder } from "./poolHistory.ts";
import { type PoolView, poolViewMaxAgeMs } from "./poolView.ts";
import { type PoolRefreshPacing, PoolViews } from "./poolViews.ts";

export interface PoolViewServiceDeps extends AllocationDeps {
  orgs: OrgService;
  /** Offered every fresh read of an org's pool (the console's pool-over-time chart). */
  history?: PoolHistoryRecorder;
  /** How the pool view's background refresh spreads its reads (tests and benchmarks set it). */
  poolRefreshPacing?: Partial<PoolRefreshPacing>;
}

/**
 * The read side of allocation: what the org's pool and its sub-workspaces hold, answered from the
 * resources record (ADR 0020) for the API, the pool sampler and the audit. It writes only what it
 * reads (the record, the pool free bounds, the history); every transfer is the write side's
 * (src/allocation).
 */
export class PoolViewService {
  readonly #views: PoolViews;

  constructor(private readonly deps: PoolViewServiceDeps) {
    this.#views = new PoolViews(deps, deps.poolRefreshPacing);
  }

  /**
   * The pool view (`GET …/serenity/resources`) from the resources record, after the tenancy check:
   * no upstream call while every entry is younger than SERENITY_POOL_VIEW_MAX_AGE_MS; older ones
   * are served at once and refreshed in the background with the caller's bearer (PoolViews).
   */
  async view(principal: Principal, orgId: string): Promise<PoolView> {
    const org = await this.deps.orgs.getAccessible(principal, orgId);
    return this.#views.view(org, principal.bearer);
  }

  /**
   * The pool view for the periodic sampler (`refresh: "stale"`, the default: only entries past the
   * max age are read) and the audit (`"all"`: every entry read now), without a tenancy check. Both
   * write what they read to the record; a read of the parent also offers the pool history a sample
   * and sets the pool-free gauge (poolViewReads.ts, the one place either happens).
   */
  async sample(org: OrgRow, bearer: string, refresh: "stale" | "all" = "stale"): Promise<PoolView> {
    // The parent's metering first (spec/allocation.md §13), so the view answered shows this read;
    // like the entries, only once it is older than the view's max age (or unknown) unless `all`.
    if (refresh === "all" || (await this.#meteringIsStale(org.id))) {
      await readParentMetering(this.deps, org, bearer, "sampler");
    }
    return this.#views.sample(org, bearer, refresh);
  }

  async #meteringIsStale(orgId: string): Promise<boolean> {
    const asOf = (await findOrgById(this.deps.db, orgId))?.metering.asOf;
    return !asOf || this.deps.clock.now().getTime() - asOf.getTime() >= poolViewMaxAgeMs(this.deps.env);
  }

  /**
   * Resolves once the background reads of this process have ended: the pool view's refreshes and
   * the metering reads guarded writes started (tests, shutdown).
   */
  async settled(): Promise<void> {
    await Promise.all([this.#views.settled(), meteringReadsSettled()]);
  }
}
