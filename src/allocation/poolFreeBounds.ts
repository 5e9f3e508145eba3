import { DEFAULT_POOL_SAMPLE_INTERVAL_MS } from "../config/env.ts";
import { durationMs } from "../config/flags.ts";
import { findPoolFreeBounds, type KnownPoolFree } from "../db/poolFreeBounds/findPoolFreeBounds.ts";
import type { PoolFreeBoundWindow } from "../db/poolFreeBounds/poolFreeBoundWindow.ts";
import { recordPoolFreeBound } from "../db/poolFreeBounds/recordPoolFreeBound.ts";
import { recordPoolGrowth } from "../db/poolFreeBounds/recordPoolGrowth.ts";
import {
  type Dimension,
  DIMENSIONS,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
} from "../domain/allocation.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import type { AllocationDeps, AllocationTarget } from "./allocationDeps.ts";

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
 * What is known of `orgId`'s pool, read before a call is sent (its generations go with what the
 * call teaches); nothing known when it cannot be read — then every attempt is sent and nothing is
 * learned.
 */
export async function knownPoolFree(
  deps: Pick<AllocationDeps, "db" | "clock" | "env" | "logger">,
  orgId: string,
): Promise<KnownPoolFree | undefined> {
  try {
    return await findPoolFreeBounds(deps.db, orgId, poolFreeBoundWindowOf(deps));
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

/** How a transfer ended, as far as the pool is concerned. */
export type TransferOutcome = "applied" | "poolExhausted" | "failed";

type LearnDeps = Pick<AllocationDeps, "db" | "clock" | "env" | "logger">;

/**
 * Learns from one transfer of `target` from `before` to `targets`, sent at `sentAtMs` (monotonic):
 * a refusal taking units of a single dimension bounds the pool there (one over two dimensions at
 * once says nothing of either), when the caller read `known` before sending it; units given back
 * raise what is known, or make it forgotten when a lowering's outcome is unknown. Best effort: a
 * failure is logged, never seen by the caller.
 */
export async function learnFromTransfer(
  deps: LearnDeps,
  target: AllocationTarget,
  transfer: {
    before: Units;
    targets: TransferTargets;
    outcome: TransferOutcome;
    sentAtMs: number;
    known?: KnownPoolFree;
  },
): Promise<void> {
  const taken: Dimension[] = [];
  const returned: Partial<Record<Dimension, number | null>> = {};
  for (const dimension of DIMENSIONS) {
    const value = transfer.targets[dimension];
    if (value === undefined) continue;
    const delta = value - transfer.before[dimension];
    if (delta > 0) taken.push(dimension);
    if (delta < 0) returned[dimension] = transfer.outcome === "applied" ? -delta : null;
  }
  await bestEffort(deps, target.orgId, async () => {
    if (transfer.outcome === "poolExhausted" && taken.length === 1 && transfer.known) {
      const dimension = taken[0]!;
      await recordPoolFreeBound(
        deps.db,
        {
          orgId: target.orgId,
          dimension,
          freeBelow: transfer.targets[dimension]! - transfer.before[dimension],
          sentAgoMs: monotonicMsOf(deps.clock) - transfer.sentAtMs,
          source: "refused",
          generation: transfer.known.generations[dimension],
        },
        poolFreeBoundWindowOf(deps),
      );
    } else if (transfer.outcome !== "poolExhausted" && Object.keys(returned).length > 0) {
      await recordPoolGrowth(deps.db, { orgId: target.orgId, returned });
    }
  });
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
  const known = read.known;
  if (!known) return;
  await bestEffort(deps, orgId, async () => {
    for (const dimension of DIMENSIONS) {
      const free = Math.max(0, read.parent[dimension].total - read.parent[dimension].used);
      await recordPoolFreeBound(
        deps.db,
        {
          orgId,
          dimension,
          freeBelow: free + 1,
          sentAgoMs: monotonicMsOf(deps.clock) - read.sentAtMs,
          source: "read",
          generation: known.generations[dimension],
        },
        poolFreeBoundWindowOf(deps),
      );
    }
  });
}

async function bestEffort(deps: LearnDeps, orgId: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    deps.logger.warn({ err: error, orgId }, "allocation: could not record what was learned of the pool");
  }
}
