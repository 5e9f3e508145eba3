import { boundedMap } from "../concurrency/boundedMap.ts";
import { findLastPublishes } from "../db/allocation/findLastPublishes.ts";
import { listBrandSubWorkspaces } from "../db/brands/listBrandSubWorkspaces.ts";
import {
  DIMENSIONS,
  totalsAfter,
  totalsOf,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
  ZERO_UNITS,
} from "../domain/allocation.ts";
import { planReclaim } from "../domain/reclaimPlan.ts";
import type { LockLease } from "../locks/reentrantLock.ts";
import type { Logger } from "../observability/logger.ts";
import type { AllocationDeps, AllocationTarget, SiblingSource, SiblingWorkspace } from "./allocationDeps.ts";
import { publishLagMs } from "./publishLag.ts";
import { recordLedgerEntry } from "./recordLedgerEntry.ts";
import { observeResources, recordTransfer } from "./resourcesRecord.ts";
import { sendTransfer } from "./sendTransfer.ts";
import { releaseErrorCodeOf } from "./upstreamFailures.ts";

/** At most this many siblings are locked and read by one rebalance: a few round trips, bounded. */
export const REBALANCE_MAX_SIBLINGS = 8;
/** How long rebalancing waits for a sibling's lock (only siblings after ours in id order). */
export const REBALANCE_LOCK_WAIT_MS = 500;
/** Sibling reads in flight at once. */
const READ_CONCURRENCY = 4;

/** The org's brand sub-workspaces from the brands table (the default sibling source). */
export function databaseSiblings(deps: Pick<AllocationDeps, "db">): SiblingSource {
  return async (orgId) =>
    (await listBrandSubWorkspaces(deps.db, { orgIds: [orgId] })).map((row) => ({
      brandId: row.brandId,
      subWorkspaceId: row.subWorkspaceId,
    }));
}

interface Held {
  sibling: SiblingWorkspace;
  lease: LockLease;
}

/**
 * spec/allocation.md §11 step 2, for a caller holding `target`'s lock whose exact top-up the pool
 * refused: moves up to `shortfall` units of slack from sibling sub-workspaces of the same org back
 * to the pool, and answers how much it moved. Each sibling is lowered only under ITS OWN lock, so
 * no write of the sibling (from any process) runs between our read of it and our transfer, and a
 * sibling keeps at least `max(floor, used + drafted)` — its in-flight need is 0 while we hold it.
 *
 * Deadlock-free by construction (docs/decisions/0001, addendum on rebalancing): sibling locks are
 * taken one at a time in id order; a sibling whose id sorts before ours is only tried once (no
 * wait), one after ours is waited for at most REBALANCE_LOCK_WAIT_MS. A holder therefore only ever
 * waits for a lock above every lock it holds, so a cycle of waits cannot form — and every wait is
 * bounded anyway. Busy siblings, siblings inside their publish-lag window (their `used` may still
 * read low) and siblings whose read or transfer fails (not ready, forbidden…) are skipped.
 *
 * Cost: one read per sibling locked and one transfer per sibling lowered (reads and transfers in
 * parallel); no parent read — the caller's retried transfer is the exhaustion signal, as in §3.
 */
export async function reclaimFromSiblings(
  deps: AllocationDeps,
  target: AllocationTarget,
  shortfall: Units,
): Promise<Units> {
  const log = deps.logger.child({
    requestId: target.requestId,
    orgId: target.orgId,
    brandId: target.brandId,
    subWorkspaceId: target.subWorkspaceId,
  });
  const emit = (
    outcome: "lowered" | "notNeeded" | "busy" | "publishLag" | "failed",
    reclaimed = ZERO_UNITS,
  ) => deps.events.emit("allocation.rebalanceSibling", { orgId: target.orgId, outcome, reclaimed });

  const source = deps.siblings ?? databaseSiblings(deps);
  const siblings = chooseSiblings(
    (await source(target.orgId)).filter((sibling) => sibling.subWorkspaceId !== target.subWorkspaceId),
  );
  /** One sibling lowered to `targets` (under its lock), with its ledger row; the units it gave. */
  const lowerSibling = async (
    sibling: SiblingWorkspace,
    resources: WorkspaceResources,
    targets: TransferTargets,
    gives: Units,
  ): Promise<Units> => {
    const at: AllocationTarget = {
      orgId: target.orgId,
      brandId: sibling.brandId,
      subWorkspaceId: sibling.subWorkspaceId,
      requestId: target.requestId,
      bearer: target.bearer,
    };
    const before = totalsOf(resources);
    const after = totalsAfter(resources, targets);
    const startedAt = deps.clock.now();
    try {
      // Fail fast even on a job's path: a not-ready sibling is skipped, not waited for under locks.
      await sendTransfer(deps, at, targets, "failFast");
    } catch (error) {
      log.info(
        { err: error, sibling: sibling.subWorkspaceId },
        "allocation: rebalance could not lower a sibling",
      );
      const errorCode = releaseErrorCodeOf(deps.upstream, error) ?? "unexpected";
      await recordLedgerEntry(deps, at, { reason: "rebalance", before, after, outcome: "failed", errorCode });
      emit("failed");
      return { ...ZERO_UNITS };
    }
    await recordTransfer(deps, at, resources, targets, startedAt);
    await recordLedgerEntry(deps, at, { reason: "rebalance", before, after, outcome: "applied" });
    log.info({ sibling: sibling.subWorkspaceId, before, after }, "allocation: rebalance lowered a sibling");
    emit("lowered", gives);
    return gives;
  };
  const held: Held[] = [];
  /** Gives a sibling's lock back as soon as we are done with it: its own writes may go on. */
  const letGo = async (entries: Held[]) => {
    for (const entry of entries) held.splice(held.indexOf(entry), 1);
    await Promise.all(entries.map(({ lease }) => lease.release()));
  };
  try {
    for (const sibling of siblings) {
      const waitMs = sibling.subWorkspaceId < target.subWorkspaceId ? 0 : REBALANCE_LOCK_WAIT_MS;
      const lease = await deps.lock.tryAcquire(sibling.subWorkspaceId, waitMs);
      if (lease) held.push({ sibling, lease });
      else emit("busy");
    }
    if (held.length === 0) return { ...ZERO_UNITS };

    const readable = await readSiblings(deps, target, [...held], emit, log);
    await letGo(held.filter((entry) => !readable.some((read) => read.entry === entry)));

    // Largest slack first, only what is still short. A sibling whose transfer fails (not ready,
    // forbidden…) gives nothing: the next wave asks the siblings not yet lowered for the rest.
    let candidates = readable;
    const reclaimed = { ...ZERO_UNITS };
    const stillShort = () => {
      const left = { ...ZERO_UNITS };
      for (const dimension of DIMENSIONS)
        left[dimension] = Math.max(0, shortfall[dimension] - reclaimed[dimension]);
      return left;
    };
    while (candidates.length > 0 && DIMENSIONS.some((dimension) => stillShort()[dimension] > 0)) {
      const plan = planReclaim(
        candidates.map(({ entry, resources }) => ({ id: entry.sibling.subWorkspaceId, resources })),
        stillShort(),
      );
      if (plan.lowered.length === 0) break;
      const planned = new Set(plan.lowered.map((reclaim) => reclaim.id));
      const wave = candidates.filter(({ entry }) => planned.has(entry.sibling.subWorkspaceId));
      candidates = candidates.filter(({ entry }) => !planned.has(entry.sibling.subWorkspaceId));
      const moved = await Promise.all(
        wave.map(async ({ entry, resources }) => {
          const reclaim = plan.lowered.find((lowered) => lowered.id === entry.sibling.subWorkspaceId)!;
          try {
            return await lowerSibling(entry.sibling, resources, reclaim.targets, reclaim.reclaimed);
          } finally {
            await letGo([entry]);
          }
        }),
      );
      for (const units of moved) for (const dimension of DIMENSIONS) reclaimed[dimension] += units[dimension];
    }
    for (let i = 0; i < candidates.length; i++) emit("notNeeded");
    return reclaimed;
  } finally {
    await letGo([...held]);
  }
}

type Emit = (outcome: "publishLag" | "failed") => void;

/**
 * The held siblings' resources, read in parallel — except those inside their publish-lag window
 * (a read could show `used` without units just published, and lowering to it would go below real
 * usage: ADR 0001 addendum) and those whose read fails. Called under the siblings' locks, so no
 * publish of theirs can land after the check.
 */
async function readSiblings(
  deps: AllocationDeps,
  target: AllocationTarget,
  held: Held[],
  emit: Emit,
  log: Logger,
): Promise<{ entry: Held; resources: WorkspaceResources }[]> {
  const lastPublishes = await findLastPublishes(
    deps.db,
    held.map(({ sibling }) => sibling.subWorkspaceId),
  );
  const lagMs = publishLagMs(deps.env);
  const now = deps.clock.now().getTime();
  const readable = held.filter(({ sibling }) => {
    const published = lastPublishes.get(sibling.subWorkspaceId);
    const lagging = published !== undefined && now - published.getTime() < lagMs;
    if (lagging) emit("publishLag");
    return !lagging;
  });
  const reads = await boundedMap(readable, READ_CONCURRENCY, async (entry) => {
    try {
      return {
        entry,
        resources: await observeResources(deps, {
          orgId: target.orgId,
          bearer: target.bearer,
          workspaceId: entry.sibling.subWorkspaceId,
        }),
      };
    } catch (error) {
      log.info(
        { err: error, sibling: entry.sibling.subWorkspaceId },
        "allocation: rebalance skipped a sibling whose read failed",
      );
      emit("failed");
      return undefined;
    }
  });
  return reads.filter((read) => read !== undefined);
}

/**
 * At most REBALANCE_MAX_SIBLINGS siblings, sorted by sub-workspace id (the lock order). With more,
 * a random sample: no sibling is always the first to give (which slack is largest is only known
 * after a read).
 */
function chooseSiblings(siblings: SiblingWorkspace[]): SiblingWorkspace[] {
  let chosen = siblings;
  if (siblings.length > REBALANCE_MAX_SIBLINGS) {
    const pool = [...siblings];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    chosen = pool.slice(0, REBALANCE_MAX_SIBLINGS);
  }
  return [...chosen].sort((a, b) => (a.subWorkspaceId < b.subWorkspaceId ? -1 : 1));
}
