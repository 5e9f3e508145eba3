import type { Principal } from "../auth/principal.ts";
import { brandMode } from "../brands/brandMode.ts";
import type { LedgerEntryRow } from "../db/allocation/insertLedgerEntry.ts";
import { listLedgerEntries } from "../db/allocation/listLedgerEntries.ts";
import type { BrandRow } from "../db/brands/insertBrand.ts";
import type { OrgRow } from "../db/orgs/insertOrg.ts";
import {
  type MeteredWriteGuard,
  type MeteredWriteGuardFactory,
  meteredWriteGuardOf,
} from "../domain/meteredWrites.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { type AllocationGuard, createAllocationGuard, type GuardContext } from "./allocationGuard.ts";
import type { PoolHistoryRecorder } from "./poolHistory.ts";
import { type PoolView, readPoolView } from "./poolView.ts";
import type { QuotaRetryBudget } from "./quotaRetryBudget.ts";
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
/** A pool view is cached this long per org (spec/allocation.md §8: "a few seconds"). */
export const POOL_VIEW_TTL_MS = 5_000;

export interface AllocationServiceDeps extends AllocationDeps {
  orgs: OrgService;
  /** Offered every fresh pool read (the console's pool-over-time chart). */
  history?: PoolHistoryRecorder;
}

/** Entry points of allocation for the API, the worker and the CLI. */
export class AllocationService {
  readonly #poolViews = new Map<string, { view: PoolView; expiresAt: number }>();
  /** The read in flight per org, and whose bearer it reads with: concurrent views share it. */
  readonly #sampling = new Map<string, { bearer: string; view: Promise<PoolView> }>();

  constructor(private readonly deps: AllocationServiceDeps) {}

  /** A guard from explicit ids (see GuardContext). Throws allocationMisconfigured when flag on and ids missing. */
  guard(context: GuardContext): AllocationGuard {
    return createAllocationGuard(this.deps, context);
  }

  /** The guard for a brand of an org, for one request or job: the usual way to build one. */
  guardFor(input: {
    org: Pick<OrgRow, "id" | "parentWorkspaceId">;
    brand: Pick<BrandRow, "id" | "subWorkspaceId" | "provisioningStatus">;
    requestId: string | null;
    bearer: string;
    path?: TransferPath;
    quotaBudget?: QuotaRetryBudget;
  }): AllocationGuard {
    return createAllocationGuard(this.deps, {
      orgId: input.org.id,
      brandId: input.brand.id,
      subWorkspaceId: input.brand.subWorkspaceId,
      parentWorkspaceId: input.org.parentWorkspaceId,
      requestId: input.requestId,
      bearer: input.bearer,
      flat: brandMode(input.brand) === "flat",
      path: input.path,
      quotaBudget: input.quotaBudget,
    });
  }

  /**
   * The guard behind the operations' metered-write seam (src/domain/meteredWrites.ts): `section`
   * is a guarded multi-write section (one lock, one ensure), `releaseSurplus` the best-effort
   * release. Building it runs the misconfiguration check, so a request path fails loud before its
   * first upstream call.
   */
  readonly meteredWrites: MeteredWriteGuardFactory = (context): MeteredWriteGuard => {
    const guard = this.guard({ ...context, requestId: context.requestId ?? null });
    return meteredWriteGuardOf({
      section: (need, work) => guard.section(need, work),
      releaseSurplus: async (floor, reason) => {
        await guard.releaseSurplusBestEffort({ floor, reason });
      },
    });
  };

  /**
   * §7 for operators (the sweep; the patient transfer path by default): under the sub-workspace's lock,
   * whatever the kill switch says — an operator asked for it explicitly. Never throws for upstream
   * or lock failures: the report carries a typed `errorCode`, absent when the failure is unexpected.
   */
  async releaseSurplus(
    target: AllocationTarget,
    options: ReleaseOptions & { path?: TransferPath },
  ): Promise<ReleaseReport> {
    try {
      return await this.deps.lock.withLock(target.subWorkspaceId, () =>
        releaseSurplusLocked(this.deps, target, options, options.path ?? "patient"),
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

  /** The pool view (`GET …/serenity/resources`), read with the caller's bearer, cached a few seconds per org. */
  async poolView(principal: Principal, orgId: string): Promise<PoolView> {
    const org = await this.deps.orgs.getAccessible(principal, orgId);
    // A read already under way for the org answers this request too (one read of N + 1
    // workspaces, not one per waiting client). Its failure is shared only with callers of the same
    // bearer: another member's token may read what this one could not — such a caller looks again,
    // and joins the next read if another caller has started one meanwhile.
    for (;;) {
      const cached = this.#poolViews.get(orgId);
      if (cached && cached.expiresAt > this.deps.clock.now().getTime()) return cached.view;
      const inFlight = this.#sampling.get(orgId);
      if (!inFlight) return this.samplePool(org, principal.bearer);
      try {
        return await inFlight.view;
      } catch (error) {
        if (inFlight.bearer === principal.bearer) throw error;
      }
    }
  }

  /**
   * Reads a fresh pool view without a tenancy check (the periodic sampler, the audit): updates the
   * pool-free gauge and the cache (never with a view older than the cached one). Pool views of the
   * org asked for meanwhile wait for this read.
   */
  async samplePool(org: OrgRow, bearer: string): Promise<PoolView> {
    const view = (async () => {
      const read = await readPoolView(this.deps, org, bearer);
      const current = this.#poolViews.get(org.id);
      if (!current || current.view.sampledAt.getTime() <= read.sampledAt.getTime()) {
        this.#poolViews.set(org.id, {
          view: read,
          expiresAt: this.deps.clock.now().getTime() + POOL_VIEW_TTL_MS,
        });
      }
      await this.deps.history?.record(org.id, read.pool, read.sampledAt);
      return read;
    })();
    const entry = { bearer, view };
    this.#sampling.set(org.id, entry);
    try {
      return await view;
    } finally {
      if (this.#sampling.get(org.id) === entry) this.#sampling.delete(org.id);
    }
  }
}
