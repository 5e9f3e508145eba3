import { allocationRebalanceEnabled, brandAiCeiling, exactTopUpsEnabled } from "../config/flags.ts";
import {
  DIMENSIONS,
  dimensionsOverCeiling,
  exactTargets,
  isEmptyTargets,
  type Need,
  planTopUp,
  sameTargets,
  takenFromPool,
  totalsAfter,
  totalsOf,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
} from "../domain/allocation.ts";
import { ServiceError } from "../domain/errors.ts";
import {
  type AllocationDeps,
  type AllocationTarget,
  targetLogger,
  type TransferPath,
} from "./allocationDeps.ts";
import { flushSection, type GuardedSection, lastPublishFor, noteRead } from "./guardedSection.ts";
import { knownNotToFit, knownPoolFree, refreshPoolInBackground } from "./poolFreeBounds.ts";
import { ownReadWithinPublishBound } from "./publishBound.ts";
import { rebalanceFromSiblings } from "./rebalanceFromSiblings.ts";
import { observeResources } from "./resourcesRecord.ts";
import { recordLedgerEntry, transferAndRecord } from "./transferAndRecord.ts";
import { toServiceError } from "./upstreamFailures.ts";

export interface EnsureOptions {
  section?: GuardedSection;
  resources?: { read: Promise<WorkspaceResources>; at: Date };
  afterQuotaRejection?: boolean;
}

export type EnsureResult = { toppedUp: false } | { toppedUp: true; newTotal: Units };

/** Which transfer of a top-up this is, as its ledger row says (spec/allocation.md §7, §11). */
type TopUpStep = "topUp" | "exact" | "rebalance";

/**
 * spec/allocation.md §3 steps 2–7 (and §11 near exhaustion), for a caller that already holds the
 * sub-workspace's allocation lock: one resources read, the plan, the ceiling, then one transfer
 * carrying every short dimension — the block first, the exact top-up if the pool refused it, then
 * rebalancing and the exact top-up once more. No parent read on this path: the upstream's 422
 * insufficient-units answer, and what earlier answers taught of the pool's free units
 * (poolFreeBounds.ts, which may skip an attempt they rule out and refresh the parent in the
 * background), are the exhaustion signals. In-flight units are always 0 here because the lock is
 * held across ensure and the metered write (docs/decisions/0001), so the next reader already sees
 * staged units.
 *
 * `options.section` is the guarded section it plans for (guardedSection.ts): the read goes there, to
 * be recorded with the section's staged units, and the last publish comes from the section's lease
 * statement; without one (a test driving ensure alone) the read is recorded and the last publish
 * read here. `options.resources` is the read the caller already started under the lock (a section
 * overlaps it with the reads that decide its need) and when it started; otherwise ensure reads.
 * `afterQuotaRejection`: this ensure follows a metered 405 of the section's write, upstream's word
 * that the read was low (publishBound.ts); the last publish is read again (the section's own).
 */
export async function ensureHeadroom(
  deps: AllocationDeps,
  target: AllocationTarget,
  need: Need,
  path: TransferPath,
  options: EnsureOptions = {},
): Promise<EnsureResult> {
  const started = deps.clock.now().getTime();
  const { section } = options;
  const id = target.subWorkspaceId;
  const readAt = options.resources?.at ?? deps.clock.now();
  let read: WorkspaceResources;
  try {
    read = await (options.resources?.read ??
      (section ? deps.upstream.readResources(target.bearer, id) : observeResources(deps, target, id)));
  } catch (error) {
    targetLogger(deps, target).warn({ err: error, need }, "allocation: resources read failed");
    throw toServiceError(deps.upstream, error);
  }
  // What a publish later in this section can move, from the read as upstream gave it; then, inside
  // the window of our own last publish, `used` as that publish made it (docs/decisions/0030).
  if (section) noteRead(section, read, readAt, need);
  const lastPublish = await lastPublishFor(deps, id, section, options.afterQuotaRejection ?? false);
  const resources = ownReadWithinPublishBound(read, lastPublish, options);
  const plan = planTopUp(resources, need);
  if (isEmptyTargets(plan.targets)) {
    deps.events.emit("allocation.headroomCheck", { orgId: target.orgId, outcome: "hot_path" });
    return { toppedUp: false };
  }
  // The transfer's answer is recorded on the entry: the section's read goes there first (ADR 0020).
  if (section) await flushSection(deps, target, section);

  // Off the hot path: the ceiling, the block-rounded transfer and, near exhaustion, §11.
  const log = targetLogger(deps, target);
  const before = totalsOf(resources);
  const ceiling = brandAiCeiling(deps.env, ({ variable }) =>
    log.warn({ variable }, "allocation: ignoring a malformed brand ceiling (positive integers only)"),
  );
  const overCeiling = dimensionsOverCeiling(plan.targets, ceiling);
  if (overCeiling.length > 0) {
    log.warn(
      { need, required: plan.required, targets: plan.targets, ceiling, dimensions: overCeiling },
      "allocation: top-up would pass the brand ceiling",
    );
    await recordLedgerEntry(deps, target, {
      reason: "topUp",
      before,
      after: totalsAfter(resources, plan.targets),
      outcome: "rejected",
      errorCode: "brandAiLimit",
    });
    deps.events.emit("allocation.rejection", { orgId: target.orgId, reason: "brandAiLimit" });
    throw new ServiceError("brandAiLimit", { details: { dimensions: overCeiling } });
  }

  // What the pool is known not to have (docs/decisions/0033): an attempt it rules out is not sent.
  const known = await knownPoolFree(deps, target.orgId);
  // One top-up asks for at most one read of the parent, however many of its steps the bound rules
  // out: a read that ended between two steps must not start another (its answer is already known).
  let refreshAsked = false;

  /** One transfer attempt, its ledger row, and whether the pool refused it (other failures throw). */
  const attempt = async (step: TopUpStep, targets: TransferTargets): Promise<"applied" | ServiceError> => {
    const after = totalsAfter(resources, targets);
    // The retry after rebalancing is always sent: the units just reclaimed are not in `known`.
    const ruledOut = step === "rebalance" ? [] : knownNotToFit(known, before, targets);
    if (step !== "rebalance" && ruledOut.length > 0) {
      log.info(
        { step, need, before, targets, ruledOut, bounds: known?.bounds },
        "allocation: top-up not sent: the pool is known not to cover it",
      );
      await recordLedgerEntry(deps, target, {
        reason: step,
        before,
        after,
        outcome: "rejected",
        errorCode: "orgPoolExhausted",
      });
      deps.events.emit("allocation.topUpNotSent", { orgId: target.orgId, step });
      if (!refreshAsked && ruledOut.some((dimension) => known?.aging.includes(dimension))) {
        refreshAsked = true;
        refreshPoolInBackground(deps, target);
      }
      return new ServiceError("orgPoolExhausted", { details: { knownNotToFit: ruledOut } });
    }
    const outcome = await transferAndRecord(deps, target, {
      reason: step,
      resources,
      targets,
      path,
      known,
      errorCodeOf: (error) => {
        const mapped = toServiceError(deps.upstream, error);
        return mapped instanceof ServiceError ? mapped.code : "unexpected";
      },
    });
    if (outcome.applied) {
      if (outcome.lostAnswer) {
        log.warn(
          {
            err: outcome.lostAnswer.error,
            step,
            need,
            before,
            targets,
            errorCode: outcome.lostAnswer.errorCode,
          },
          "allocation: topped up (settled by a read after a lost answer)",
        );
      } else {
        log.info({ step, need, required: plan.required, before, after }, "allocation: topped up");
      }
      return "applied";
    }
    const { error, errorCode, settled } = outcome;
    log.warn(
      { err: error, step, need, required: plan.required, before, targets, errorCode, settled },
      "allocation: top-up transfer failed",
    );
    const mapped = toServiceError(deps.upstream, error);
    if (errorCode === "orgPoolExhausted") return mapped as ServiceError;
    if (errorCode === "workspaceBusy") {
      deps.events.emit("allocation.rejection", { orgId: target.orgId, reason: errorCode });
    }
    throw mapped;
  };
  const served = (targets: TransferTargets): EnsureResult => {
    deps.events.emit("allocation.headroomCheck", { orgId: target.orgId, outcome: "topped_up" });
    deps.events.emit("allocation.topUp", {
      orgId: target.orgId,
      path: path === "settle" ? "settle" : "fail_fast",
      durationSeconds: (deps.clock.now().getTime() - started) / 1000,
    });
    return { toppedUp: true, newTotal: totalsAfter(resources, targets) };
  };
  const nearExhaustion = (step: "exact" | "rebalance", outcome: "applied" | ServiceError) =>
    deps.events.emit("allocation.nearExhaustion", {
      orgId: target.orgId,
      step,
      outcome: outcome === "applied" ? "served" : "refused",
    });
  const refused = (error: ServiceError): never => {
    deps.events.emit("allocation.rejection", { orgId: target.orgId, reason: "orgPoolExhausted" });
    throw error;
  };

  let refusal = await attempt("topUp", plan.targets);
  if (refusal === "applied") return served(plan.targets);

  // §11 step 1: the pool cannot cover the block; it may still cover what the write needs.
  const exact = exactTopUpsEnabled(deps.env) ? exactTargets(plan) : plan.targets;
  if (!sameTargets(exact, plan.targets)) {
    refusal = await attempt("exact", exact);
    nearExhaustion("exact", refusal);
    if (refusal === "applied") return served(exact);
  }

  // §11 step 2: rebalance — lower siblings' slack under their own locks, then retry once.
  if (!allocationRebalanceEnabled(deps.env)) return refused(refusal);
  const shortfall = takenFromPool(resources, exact);
  const reclaimed = await rebalanceFromSiblings(deps, target, shortfall);
  if (DIMENSIONS.every((dimension) => reclaimed[dimension] === 0)) {
    log.info({ shortfall }, "allocation: rebalancing found no sibling slack");
    nearExhaustion("rebalance", refusal);
    return refused(refusal);
  }
  const retried = await attempt("rebalance", exact);
  nearExhaustion("rebalance", retried);
  if (retried === "applied") return served(exact);
  log.warn({ shortfall, reclaimed }, "allocation: refused even after rebalancing");
  return refused(retried);
}
