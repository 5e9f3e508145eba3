import { DEFAULT_POOL_SAMPLE_INTERVAL_MS } from "../config/env.ts";
import { durationMs } from "../config/flags.ts";
import { beginAnnouncement } from "../db/resourceObservations/beginAnnouncement.ts";
import { endAnnouncement } from "../db/resourceObservations/endAnnouncement.ts";
import {
  findPoolFreeBounds,
  type KnownPoolFree,
  type PoolFreeBoundWindow,
} from "../db/resourceObservations/findPoolFreeBounds.ts";
import { recordPoolFreeBound } from "../db/resourceObservations/recordPoolFreeBound.ts";
import {
  type Dimension,
  DIMENSIONS,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
} from "../domain/allocation.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import type { AllocationDeps, AllocationTarget } from "./allocationDeps.ts";
import type { Announcement } from "./announced.ts";

/**
 * What Serenity knows its org's pool cannot give (docs/decisions/0033). The upstream's 422
 * "insufficient units" is the only exhaustion signal on a request's path (no parent read there),
 * and each one is a round trip that serves nothing: near exhaustion a refused write met it twice
 * (the block, then the exact top-up), on every write. But every refusal, and every read of the
 * parent the pool sampler or a pool view makes anyway, says the pool's free units are below some
 * figure; Serenity keeps the figure per org and dimension, raises it by every unit it gives back
 * itself, and trusts it for the sampler's interval — within which the sampler's next read of the
 * parent shows units somebody else added. A top-up the figure rules out is not sent: the block is
 * skipped for the exact top-up, the exact one for rebalancing.
 */

export type { KnownPoolFree };

/**
 * How long a bound is trusted: the pool sampler's interval (SERENITY_POOL_SAMPLE_INTERVAL_MS), the
 * longest units somebody else added stay unseen while a worker samples the pool.
 */
export function poolFreeBoundWindowOf(deps: Pick<AllocationDeps, "clock" | "env">): PoolFreeBoundWindow {
  return {
    ttlMs: durationMs("SERENITY_POOL_SAMPLE_INTERVAL_MS", DEFAULT_POOL_SAMPLE_INTERVAL_MS, deps.env),
    now: deps.clock.databaseTime?.(),
  };
}

/**
 * How old a bound may be and still rule a top-up out without a second look: an older one still
 * does, but the parent is read again in the background (`refreshPoolInBackground`), so units added
 * since are seen by the next request rather than at the sampler's next pass.
 */
export const POOL_BOUND_FRESH_MS = 5_000;

/**
 * What is known of `orgId`'s pool, read before a call is sent (its version goes with what the
 * call teaches); nothing known when it cannot be read — then every attempt is sent and nothing is
 * learned.
 */
export async function knownPoolFree(
  deps: Pick<AllocationDeps, "db" | "clock" | "env" | "logger">,
  orgId: string,
): Promise<KnownPoolFree | undefined> {
  try {
    return await findPoolFreeBounds(deps.db, orgId, {
      ...poolFreeBoundWindowOf(deps),
      freshMs: POOL_BOUND_FRESH_MS,
    });
  } catch (error) {
    deps.logger.warn({ err: error, orgId }, "allocation: could not read what is known of the pool");
    return undefined;
  }
}

/** The dimensions in which moving `before` to `targets` takes at least what the pool is known not to have. */
export function knownNotToFit(
  known: KnownPoolFree | undefined,
  before: Units,
  targets: TransferTargets,
): Dimension[] {
  return DIMENSIONS.filter((dimension) => {
    const target = targets[dimension];
    const freeBelow = known?.bounds[dimension];
    return target !== undefined && freeBelow !== undefined && target - before[dimension] >= freeBelow;
  });
}

type LearnDeps = Pick<AllocationDeps, "db" | "clock" | "env" | "logger">;

/** The units moving `before` to `targets` gives back to the pool, per dimension (none when it takes). */
export function returnedUnits(before: Units, targets: TransferTargets): Partial<Record<Dimension, number>> {
  const returned: Partial<Record<Dimension, number>> = {};
  for (const dimension of DIMENSIONS) {
    const value = targets[dimension];
    if (value !== undefined && value < before[dimension]) returned[dimension] = before[dimension] - value;
  }
  return returned;
}

/**
 * A lowering, announced (announced.ts) on the org's parent's entry: before it is sent the bound is
 * raised by what it returns and the lowering is in flight; when that cannot be written the lowering
 * is not sent, or a bound learned meanwhile would miss its units — the caller's transfer fails
 * instead (a release is left for the sweep, a sibling is skipped).
 */
export function poolLowering(
  deps: Pick<AllocationDeps, "db">,
  orgId: string,
  returning: Partial<Record<Dimension, number>>,
): Announcement {
  return {
    what: "a lowering",
    fields: { orgId, dimensions: Object.keys(returning) },
    begin: (hold) => beginAnnouncement(deps.db, { orgId }, hold, returning),
    end: () => endAnnouncement(deps.db, { orgId }),
  };
}

/**
 * Learns from a top-up of `target` from `before` to `targets`, sent at `sentAtMs` (monotonic) with
 * `known` read before it: a refusal taking units of a single dimension bounds the pool there (one
 * over two dimensions at once says nothing of either).
 */
export async function learnFromRefusal(
  deps: LearnDeps,
  target: AllocationTarget,
  transfer: { before: Units; targets: TransferTargets; sentAtMs: number; known: KnownPoolFree | undefined },
): Promise<void> {
  const taken = DIMENSIONS.filter((dimension) => {
    const value = transfer.targets[dimension];
    return value !== undefined && value > transfer.before[dimension];
  });
  if (taken.length !== 1) return;
  const dimension = taken[0]!;
  const freeBelow = transfer.targets[dimension]! - transfer.before[dimension];
  await learn(deps, target.orgId, transfer, "refused", [[dimension, freeBelow]]);
}

/**
 * Learns from a read of the org's parent sent at `sentAtMs` (monotonic), `known` read before it
 * was sent: its free units per dimension (`total − used`, what a transfer may take; a `used` still
 * lagging a publish only makes the figure larger, the safe direction).
 */
export async function learnFromParentRead(
  deps: LearnDeps,
  orgId: string,
  read: { parent: WorkspaceResources; sentAtMs: number; known: KnownPoolFree | undefined },
): Promise<void> {
  const free = (dimension: Dimension) =>
    Math.max(0, read.parent[dimension].total - read.parent[dimension].used);
  await learn(
    deps,
    orgId,
    read,
    "read",
    DIMENSIONS.map((dimension) => [dimension, free(dimension) + 1]),
  );
}

/**
 * Records each bound a call taught, against the version `known` held before it was sent (nothing
 * without one). Best effort: a failure is logged, never seen by the caller.
 */
async function learn(
  deps: LearnDeps,
  orgId: string,
  call: { sentAtMs: number; known: KnownPoolFree | undefined },
  source: "refused" | "read",
  bounds: [Dimension, number][],
): Promise<void> {
  const known = call.known;
  if (!known) return;
  try {
    for (const [dimension, freeBelow] of bounds) {
      await recordPoolFreeBound(
        deps.db,
        {
          orgId,
          dimension,
          freeBelow,
          sentAgoMs: monotonicMsOf(deps.clock) - call.sentAtMs,
          source,
          version: known.version,
        },
        poolFreeBoundWindowOf(deps),
      );
    }
  } catch (error) {
    deps.logger.warn({ err: error, orgId }, "allocation: could not record what was learned of the pool");
  }
}

/** The orgs whose parent this process is reading again right now (one read at a time per org). */
const refreshing = new Set<string>();

/**
 * Reads the org's parent again in the background, and learns from it: a top-up was just ruled out
 * by a bound older than POOL_BOUND_FRESH_MS, and units may have been added since (docs/decisions/0033).
 * Never awaited by the request that asked (the read is background work in the upstream budget);
 * one at a time per org in a process; a failure is logged.
 */
export function refreshPoolInBackground(
  deps: LearnDeps & Pick<AllocationDeps, "upstream">,
  target: Pick<AllocationTarget, "orgId" | "bearer" | "parentWorkspaceId">,
): void {
  const { orgId, parentWorkspaceId } = target;
  if (!parentWorkspaceId || refreshing.has(orgId)) return;
  refreshing.add(orgId);
  void asBackgroundWork(async () => {
    const known = await knownPoolFree(deps, orgId);
    if (!known) return; // nothing could be learned against it
    const sentAtMs = monotonicMsOf(deps.clock);
    const parent = await deps.upstream.readResources(target.bearer, parentWorkspaceId);
    await learnFromParentRead(deps, orgId, { parent, sentAtMs, known });
  })
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, orgId }, "allocation: could not read the pool again"),
    )
    .finally(() => refreshing.delete(orgId));
}
