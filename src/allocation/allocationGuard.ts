import { dynamicAllocationEnabled } from "../config/flags.ts";
import type { SectionStart } from "../db/allocation/acquireAllocationLock.ts";
import type { Need, Units } from "../domain/allocation.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import {
  type MeteredWriteContext,
  type MeteredWriteGuard,
  MODEL_ADD_CALL_SITE,
  needOf,
  type NeedSource,
  PUBLISH_CALL_SITE,
  type ReleaseReason,
  type SectionOptions,
  type SectionWrite,
} from "../domain/meteredWrites.ts";
import { allocates, type MeteringState } from "../domain/metering.ts";
import type { Logger } from "../observability/logger.ts";
import type { AllocationDeps, AllocationTarget, TransferPath } from "./allocationDeps.ts";
import { announced } from "./announced.ts";
import { ensureHeadroom } from "./ensureHeadroom.ts";
import {
  flushSection,
  type GuardedSection,
  noteStaged,
  publishInSection,
  publishUnguarded,
  sectionOf,
} from "./guardedSection.ts";
import { modelAdd } from "./modelSetChanges.ts";
import { meteringBearer, readMeteringInBackground, readParentMetering } from "./parentMetering.ts";
import { createQuotaRetryBudget } from "./quotaRetryBudget.ts";
import { releaseSurplusLocked } from "./releaseSurplus.ts";
import { type AfterQuotaRejection, retryOnQuota } from "./retryOnQuota.ts";
import { releaseErrorCodeOf } from "./upstreamFailures.ts";

type GuardMode =
  | { kind: "off" }
  | { kind: "flat" }
  | { kind: "unmetered"; target: AllocationTarget }
  | { kind: "on"; target: AllocationTarget };

/**
 * The allocation guard: the metered-write seam's implementation, built per request (or job) for
 * one sub-workspace. Its transfers take the request path (`failFast`), and its writes share one
 * quota-retry budget (spec/allocation.md §6). The kill switch is read on every call: off (or a
 * flat brand) makes every method a pass-through with zero upstream calls, except that a metered
 * 405 still maps to quotaExceeded. Building it runs the setup check, so a misconfiguration fails
 * before the request's first upstream call.
 *
 * With the switch on it follows the org's parent (spec/allocation.md §13, docs/decisions/0034),
 * as the context carries it (loaded with the org, no statement of its own): `unmetered` is the
 * same pass-through as the switch off — no lock, no resources read, no transfer, no record or
 * ledger write — except that a metered 405 reads the parent's flag again at once (the safety net:
 * a parent that started metering flips the org and the write is topped up and retried, §6);
 * `unknown` is guarded like `metered` while the flag is read in the background.
 */
export function createAllocationGuard(deps: AllocationDeps, context: MeteredWriteContext): MeteredWriteGuard {
  const path: TransferPath = "failFast";
  const budget = createQuotaRetryBudget();
  /** The org's metering for this request: as loaded, until the safety net reads it again. */
  let metering: MeteringState = context.metering;
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
    const target: AllocationTarget = {
      orgId: context.orgId,
      brandId: context.brandId,
      subWorkspaceId: context.subWorkspaceId,
      parentWorkspaceId: context.parentWorkspaceId,
      requestId: context.requestId,
      bearer: context.bearer,
    };
    if (!allocates(metering)) return { kind: "unmetered", target };
    if (metering === "unknown") {
      readMeteringInBackground(
        deps,
        { id: context.orgId, parentWorkspaceId: context.parentWorkspaceId },
        meteringBearer(deps, context.orgId, context.bearer),
      );
    }
    return { kind: "on", target };
  }

  // The check lives where the guard is built, so every request path that builds one reaches it.
  mode();

  async function ensureAfterQuotaRejection(
    target: AllocationTarget,
    need: Need,
    section?: GuardedSection,
  ): Promise<AfterQuotaRejection> {
    await deps.lock.withLock(target.subWorkspaceId, () =>
      ensureHeadroom(deps, target, need, path, { section, afterQuotaRejection: true }),
    );
    return "retry";
  }

  /**
   * The safety net (spec/allocation.md §13): a metered 405 on an org recorded unmetered reads the
   * parent's flag again at once, inside the request's quota budget. Metered now: the org flips
   * (readParentMetering records it, with its event and log line) and the rest of this request is
   * guarded — this write is topped up and retried (§6). Still unmetered: the 405 is the upstream's
   * word alone, answered quotaExceeded as with the switch off. Unreadable (or no budget left to
   * read): this request is guarded from here on, the safe side, and the record is left as it is.
   */
  async function afterUnmeteredRejection(
    target: AllocationTarget,
    need: NeedSource,
  ): Promise<AfterQuotaRejection> {
    // Flipped by an earlier write of this request: guarded from here on, no second read.
    if (allocates(metering)) return ensureAfterQuotaRejection(target, await needOf(need));
    if (budget.remainingMs <= 0) return "notGuarded";
    const started = monotonicMsOf(deps.clock);
    const read = await readParentMetering(
      deps,
      { id: target.orgId, parentWorkspaceId: target.parentWorkspaceId ?? null },
      meteringBearer(deps, target.orgId, target.bearer),
      "quotaRejection",
      // A deadline on the read, not a wait: it ends the call once the request's budget is spent.
      { signal: AbortSignal.timeout(budget.remainingMs) },
    );
    budget.spend(monotonicMsOf(deps.clock) - started);
    if (read === "unmetered") return "notGuarded";
    metering = "metered";
    return ensureAfterQuotaRejection(target, await needOf(need));
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
    section?: GuardedSection,
  ): Promise<T> {
    return retryOnQuota(
      deps,
      {
        orgId: context.orgId,
        requestId: context.requestId,
        budget,
        ensure:
          current.kind === "on"
            ? async () => ensureAfterQuotaRejection(current.target, await needOf(need), section)
            : current.kind === "unmetered"
              ? () => afterUnmeteredRejection(current.target, need)
              : undefined,
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
  async function section<T>(
    need: NeedSource,
    work: (write: SectionWrite) => Promise<T>,
    options: SectionOptions = {},
  ): Promise<T> {
    const current = mode();
    if (current.kind !== "on") {
      await needOf(need);
      return work((callSite, fn, stages = {}) =>
        retry(
          current,
          callSite,
          stages,
          callSite === PUBLISH_CALL_SITE
            ? () =>
                publishUnguarded(deps, context.orgId, context.subWorkspaceId ?? context.parentWorkspaceId, fn)
            : fn,
        ),
      );
    }
    const { target } = current;
    const id = target.subWorkspaceId;
    // The need's reads start once the lease's first attempt answered where the model sets stand: a
    // change after that may leave the need short of what the writes stage, and a publish of the
    // section then records no basis — checked by the publish's own statement (modelSetChanges.ts).
    // A fixed need, or one worked out under the lock, has nothing to fear (NeedSource). The reads
    // look at the project, not at the allocation, so they overlap the lock wait; the resources read
    // starts only once the lock is held, so it sees every unit staged before.
    const modelsMatter = typeof need === "function" && !options.needUnderLock;
    let firstAttempt!: (state: unknown) => void;
    const first = new Promise<SectionStart | undefined>((resolve) => {
      firstAttempt = (state) => resolve(state as SectionStart | undefined);
    });
    const deciding = options.needUnderLock ? undefined : first.then(() => needOf(need));
    deciding?.catch(() => undefined); // awaited below; a failed lock wait must not leave it unobserved
    return deps.lock.withLock(
      id,
      async (held) => {
        firstAttempt(undefined); // a lock that never told (a test's stand-in): the need starts now
        const outermost = held.scope.section === undefined;
        const section = await sectionOf(deps, id, held, await first, modelsMatter);
        const readAt = deps.clock.now();
        const read = deps.upstream.readResources(target.bearer, id);
        read.catch(() => undefined); // awaited by ensure unless the need's reads failed first
        // Before each write: a holder that stalled past its lease must not write unserialised. A
        // model add is announced around its call (announced.ts); a publish is recorded with
        // the section's basis before it is sent (guardedSection.ts).
        const write: SectionWrite = (callSite, fn, stages = {}) => {
          deps.lock.assertHeld(id);
          const send =
            callSite === MODEL_ADD_CALL_SITE
              ? () => announced(deps, modelAdd(deps, target.orgId, id, section), fn)
              : callSite === PUBLISH_CALL_SITE
                ? () => publishInSection(deps, target, section, fn)
                : fn;
          return retry(current, callSite, stages, send, section);
        };
        try {
          const ensured = await (deciding ?? needOf(need));
          await ensureHeadroom(deps, target, ensured, path, { section, resources: { read, at: readAt } });
          // What the section stages (its need, §5) goes to the record with its read, while the lock
          // is still held: the figure a read lagging behind its publish must not lower (ADR 0020).
          noteStaged(section, ensured);
          return await work(write);
        } finally {
          if (outermost) await flushSection(deps, target, section);
        }
      },
      { onFirstAttempt: firstAttempt },
    );
  }

  /** §7 under the lock, best effort: a failure is logged and left for the sweep, never thrown. */
  async function releaseSurplus(floor: Units, reason: ReleaseReason): Promise<void> {
    try {
      const current = mode();
      if (current.kind !== "on") return;
      const report = await deps.lock.withLock(current.target.subWorkspaceId, () =>
        releaseSurplusLocked(deps, current.target, { floor, reason }, path),
      );
      if (report.outcome === "error") {
        log().warn({ report }, "allocation: best-effort release failed; left for the sweep");
      }
    } catch (error) {
      // The lock wait (workspaceBusy), a database failure or allocationMisconfigured: a failed
      // release never fails the user's request.
      const errorCode = releaseErrorCodeOf(deps.upstream, error);
      log().warn({ err: error, errorCode }, "allocation: best-effort release failed; left for the sweep");
      deps.events.emit("allocation.release", { orgId: context.orgId, outcome: "error" });
    }
  }

  return {
    section,
    singleWrite: (callSite, need, fn) => section(need, (write) => write(callSite, fn, need)),
    releaseSurplus,
  };
}
