import { dynamicAllocationEnabled } from "../config/flags.ts";
import type { Need } from "../domain/allocation.ts";
import { ServiceError } from "../domain/errors.ts";
import { needOf, type NeedSource, type SectionWrite } from "../domain/meteredWrites.ts";
import type { Logger } from "../observability/logger.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { ensureHeadroom, type EnsureResult } from "./ensureHeadroom.ts";
import { createQuotaRetryBudget, type QuotaRetryBudget } from "./quotaRetryBudget.ts";
import {
  type ReleaseOptions,
  type ReleaseOutcome,
  type ReleaseReport,
  releaseSurplusLocked,
} from "./releaseSurplus.ts";
import { observeResources, recordStaged } from "./resourcesRecord.ts";
import { retryOnQuota } from "./retryOnQuota.ts";
import { releaseErrorCodeOf } from "./upstreamFailures.ts";

/** Who and what one request's guard acts for (spec/allocation.md §3). */
export interface GuardContext {
  orgId: string;
  brandId: string | null;
  /** The brand's canonical sub-workspace; `null` on a sub-workspace brand is a misconfiguration. */
  subWorkspaceId: string | null;
  /** The org's parent workspace (the pool). */
  parentWorkspaceId: string | null;
  requestId: string | null;
  bearer: string;
  /** A flat-mode brand writes straight into the parent: the pool is its allocation, never guarded. */
  flat: boolean;
  /** `failFast` (default, request paths) or `settle` (jobs). */
  path?: TransferPath;
  /** The request's quota-retry budget; pass the same one to every guard of one request. */
  quotaBudget?: QuotaRetryBudget;
}

/** A guard's release: the §7 outcomes plus `disabled` when allocation is not guarding this brand. */
export type GuardReleaseReport = Omit<ReleaseReport, "outcome" | "subWorkspaceId"> & {
  outcome: ReleaseOutcome | "disabled";
  subWorkspaceId: string | null;
};

/**
 * The seam every metered upstream write goes through. Built per request for one sub-workspace.
 * The kill switch is read on every call: off (or a flat brand) makes every method a no-op with
 * zero upstream calls, except that a metered 405 still maps to quotaExceeded.
 */
export interface AllocationGuard {
  /** Whether the guard currently acts (flag on and a sub-workspace brand). */
  readonly active: boolean;
  /** §3: makes sure the sub-workspace has headroom for `need` (takes the lock for itself). */
  ensure(need: Need): Promise<EnsureResult>;
  /**
   * THE call for a request's metered writes into this sub-workspace: take the sub-workspace's
   * allocation lock ONCE, `ensure(need)` ONCE — `need` is the sum of what every write of the
   * section stages, per §5: project create `{projects: 1}`; prompt create `{prompts: k × m}` (new
   * texts × models); model add `{prompts: t}` per model; publish `{}` — then run `work`, each of
   * whose writes runs under the held lock inside retryOnQuota (sharing the request's budget). One
   * resources read per section, so one per request and sub-workspace (SPEC §7).
   */
  section<T>(need: NeedSource, work: (write: SectionWrite) => Promise<T>): Promise<T>;
  /** A section of one write: `section(need, (w) => w(callSite, write, need))`. */
  singleWrite<T>(callSite: string, need: Need, write: () => Promise<T>): Promise<T>;
  /** §6 on its own (a write whose headroom was ensured by an enclosing section). */
  retryOnQuota<T>(callSite: string, write: () => Promise<T>): Promise<T>;
  /** §7 under the lock; never throws for upstream or lock failures (outcome `error` instead). */
  releaseSurplus(options: ReleaseOptions): Promise<GuardReleaseReport>;
  /** For request paths after a delete: never throws at all; failures are logged and left for the sweep. */
  releaseSurplusBestEffort(options: ReleaseOptions): Promise<GuardReleaseReport>;
}

type GuardMode = { kind: "off" } | { kind: "flat" } | { kind: "on"; target: AllocationTarget };

export function createAllocationGuard(deps: AllocationDeps, context: GuardContext): AllocationGuard {
  const path = context.path ?? "failFast";
  const budget = context.quotaBudget ?? createQuotaRetryBudget();
  // Built on first use: the hot path logs nothing, and a child logger per request is not free.
  let child: Logger | undefined;
  const log = () =>
    (child ??= deps.logger.child({
      requestId: context.requestId,
      orgId: context.orgId,
      brandId: context.brandId,
    }));

  function mode(): GuardMode {
    if (!dynamicAllocationEnabled(deps.env)) return { kind: "off" };
    if (context.flat) return { kind: "flat" };
    if (!context.subWorkspaceId || !context.parentWorkspaceId) {
      // Fail loud before any upstream call: a brand silently skipped would fail later, opaquely.
      log().error(
        {
          hasSubWorkspaceId: Boolean(context.subWorkspaceId),
          hasParentWorkspaceId: Boolean(context.parentWorkspaceId),
        },
        "allocation: dynamic allocation is on but a workspace id is missing",
      );
      throw new ServiceError("allocationMisconfigured");
    }
    if (context.subWorkspaceId === context.parentWorkspaceId) {
      log().error({ subWorkspaceId: context.subWorkspaceId }, "allocation: sub-workspace equals the parent");
      throw new ServiceError("workspaceMisconfigured");
    }
    return {
      kind: "on",
      target: {
        orgId: context.orgId,
        brandId: context.brandId,
        subWorkspaceId: context.subWorkspaceId,
        requestId: context.requestId,
        bearer: context.bearer,
      },
    };
  }

  // The check lives where the guard is built, so every request path that builds one reaches it.
  mode();

  function ensureUnderLock(target: AllocationTarget, need: Need): Promise<EnsureResult> {
    return deps.lock.withLock(target.subWorkspaceId, () => ensureHeadroom(deps, target, need, path));
  }

  /**
   * `need` is what the wrapped write still needs after a 405: `{}` for a write whose units are
   * already staged (publish) or unknown, what that one write stages otherwise (not the whole
   * section's need: earlier writes of the section already staged theirs). A metered write is all or
   * nothing, so after a 405 its need is still wholly unstaged; re-ensuring it against a fresh read
   * is what recovers from a stale-low read (used lagging just after a publish), where `ensure({})`
   * alone would find nothing short and every retry would fail the same way.
   */
  function retry<T>(
    current: GuardMode,
    callSite: string,
    need: NeedSource,
    write: () => Promise<T>,
  ): Promise<T> {
    return retryOnQuota(
      deps,
      {
        orgId: context.orgId,
        requestId: context.requestId,
        budget,
        ensure:
          current.kind === "on" ? async () => ensureUnderLock(current.target, await needOf(need)) : undefined,
      },
      callSite,
      write,
    );
  }

  /**
   * Why one ensure covers every write of the section, publish included: the lock is held from the
   * ensure to the last write, and every process stages units on this sub-workspace only under its
   * lock, so nobody else can consume the headroom ensured at the start. Each write then stages at
   * most its share of `need`, and a publish (need `{}`) only turns staged units into used ones —
   * `used + drafted` cannot pass the total the ensure left, so its "re-check with drafted
   * included" (§5) is already done. A 405 anyway (the upstream's own lag) is retryOnQuota's.
   */
  async function section<T>(need: NeedSource, work: (write: SectionWrite) => Promise<T>): Promise<T> {
    const current = mode();
    if (current.kind !== "on") {
      await needOf(need);
      return work((callSite, fn, stages = {}) => retry(current, callSite, stages, fn));
    }
    const { target } = current;
    // Before each write: a holder that stalled past its lease must not write unserialised.
    const write: SectionWrite = (callSite, fn, stages = {}) => {
      deps.lock.assertHeld(target.subWorkspaceId);
      return retry(current, callSite, stages, fn);
    };
    // The reads that decide the need start now, alongside the lock and the resources read: they
    // look at the project, not at the allocation, so they need not wait for the lock. The
    // resources read starts only once the lock is held, so it sees every unit staged before.
    const deciding = needOf(need);
    deciding.catch(() => undefined); // awaited below; a failed lock wait must not leave it unobserved
    return deps.lock.withLock(target.subWorkspaceId, async () => {
      const resources = observeResources(deps, {
        orgId: target.orgId,
        bearer: target.bearer,
        workspaceId: target.subWorkspaceId,
      });
      resources.catch(() => undefined); // awaited by ensure unless the need's reads failed first
      const ensured = await deciding;
      await ensureHeadroom(deps, target, ensured, path, resources);
      const result = await work(write);
      // What the section staged (its need, §5) goes to the resources record while the lock is
      // still held: the figure a read lagging behind its publish must not lower (ADR 0020). An
      // item that failed inside the work makes it high until the next read: the safe direction.
      await recordStaged(deps, target, ensured);
      return result;
    });
  }

  async function release(options: ReleaseOptions): Promise<GuardReleaseReport> {
    const current = mode();
    if (current.kind !== "on") {
      return { outcome: "disabled", subWorkspaceId: context.subWorkspaceId, requiresDecommission: [] };
    }
    try {
      return await deps.lock.withLock(current.target.subWorkspaceId, () =>
        releaseSurplusLocked(deps, current.target, options, path),
      );
    } catch (error) {
      // Only the lock wait (workspaceBusy) or a database failure reaches here.
      const errorCode = releaseErrorCodeOf(deps.upstream, error);
      log().warn({ err: error, errorCode }, "allocation: release could not run");
      deps.events.emit("allocation.release", { orgId: context.orgId, outcome: "error" });
      return {
        outcome: "error",
        subWorkspaceId: current.target.subWorkspaceId,
        requiresDecommission: [],
        errorCode,
      };
    }
  }

  return {
    get active() {
      return mode().kind === "on";
    },

    async ensure(need) {
      const current = mode();
      if (current.kind !== "on") return { toppedUp: false };
      return ensureUnderLock(current.target, need);
    },

    section,

    singleWrite(callSite, need, write) {
      return section(need, (sectionWrite) => sectionWrite(callSite, write, need));
    },

    async retryOnQuota(callSite, write) {
      return retry(mode(), callSite, {}, write);
    },

    releaseSurplus: release,

    async releaseSurplusBestEffort(options) {
      try {
        const report = await release(options);
        if (report.outcome === "error") {
          log().warn({ report }, "allocation: best-effort release failed; left for the sweep");
        }
        return report;
      } catch (error) {
        // e.g. allocationMisconfigured: a failed release never fails the user's request.
        log().warn({ err: error }, "allocation: best-effort release failed; left for the sweep");
        deps.events.emit("allocation.release", { orgId: context.orgId, outcome: "error" });
        return { outcome: "error", subWorkspaceId: context.subWorkspaceId, requiresDecommission: [] };
      }
    },
  };
}
