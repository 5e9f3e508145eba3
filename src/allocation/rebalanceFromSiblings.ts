import { findLastPublishes, type LastPublish } from "../db/allocation/findLastPublishes.ts";
import { listBrandSubWorkspaces } from "../db/brands/listBrandSubWorkspaces.ts";
import { listOrgObservations } from "../db/resourceObservations/listOrgObservations.ts";
import { holdsResources, type ResourceObservation } from "../db/resourceObservations/observationRow.ts";
import {
  DIMENSIONS,
  totalsOf,
  type TransferTargets,
  type Units,
  type WorkspaceResources,
  ZERO_UNITS,
} from "../domain/allocation.ts";
import { planRebalance, siblingSlack } from "../domain/rebalancePlan.ts";
import {
  type AllocationDeps,
  type AllocationTarget,
  type SiblingSource,
  type SiblingWorkspace,
  targetLogger,
} from "./allocationDeps.ts";
import { publishWindowOf, withinPublishBound } from "./publishBound.ts";
import { observeResources } from "./resourcesRecord.ts";
import { transferAndRecord } from "./transferAndRecord.ts";
import { releaseErrorCodeOf } from "./upstreamFailures.ts";

/** At most this many siblings are tried (locked and read) by one rebalance: a few round trips, bounded. */
export const REBALANCE_MAX_SIBLINGS = 8;
/** How long rebalancing waits for a sibling's lock (only siblings after ours in id order). */
export const REBALANCE_LOCK_WAIT_MS = 500;

/** The org's brand sub-workspaces from the brands table (the default sibling source). */
export function databaseSiblings(deps: Pick<AllocationDeps, "db">): SiblingSource {
  return async (orgId) =>
    (await listBrandSubWorkspaces(deps.db, { orgIds: [orgId] })).map((row) => ({
      brandId: row.brandId,
      subWorkspaceId: row.subWorkspaceId,
    }));
}

/**
 * spec/allocation.md §11 step 2, for a caller holding `target`'s lock whose exact top-up the pool
 * refused: moves up to `shortfall` units of slack from sibling sub-workspaces of the same org back
 * to the pool, and answers how much it moved. Each sibling is lowered only under ITS OWN lock, so
 * no write of the sibling (from any process) runs between our read of it and our transfer, and a
 * sibling keeps at least `max(floor, used + drafted)` — its in-flight need is 0 while we hold it.
 *
 * Which siblings (docs/decisions/0030): the resources record says what each sibling last had; the
 * siblings are tried one at a time, the largest known slack in the short dimensions first and, at
 * equal slack, the freshest entry first — each locked, read, lowered and let go before the next —
 * until the shortfall is covered. A rebalance that one sibling covers costs one read and one
 * transfer, instead of a read of every candidate. Siblings whose entry shows no slack are not
 * tried; siblings without an entry come last (nothing is known of them).
 *
 * Inside a sibling's publish-lag window its read's `used` may miss units just published. When that
 * publish was Serenity's, made inside a guarded section, its record carries a bound on the real
 * `used` (`bound`); the read is then planned from `used` raised to it (publishBound.ts). A read
 * that shows more `used` than the bound allows was moved by a write Serenity did not make, and a
 * publish without a bound has no basis: both keep the conservative rule — skipped.
 *
 * Deadlock-free by construction (docs/decisions/0001, addendum on rebalancing): at most one
 * sibling lock is held at a time, besides our own; a sibling whose id sorts before ours is only
 * tried once (no wait), one after ours is waited for at most REBALANCE_LOCK_WAIT_MS. A holder
 * therefore only ever waits for a lock above every lock it holds, so a cycle of waits cannot
 * form — and every wait is bounded anyway. Busy siblings and siblings whose read or transfer fails
 * (not ready, forbidden…) are skipped.
 *
 * Cost: one read per sibling tried and one transfer per sibling lowered; no parent read — the
 * caller's retried transfer is the exhaustion signal, as in §3.
 */
export async function rebalanceFromSiblings(
  deps: AllocationDeps,
  target: AllocationTarget,
  shortfall: Units,
): Promise<Units> {
  const log = targetLogger(deps, target);
  const emit = (
    outcome: "lowered" | "notNeeded" | "busy" | "publishLag" | "failed",
    reclaimed: Units = ZERO_UNITS,
  ) => deps.events.emit("allocation.rebalanceSibling", { orgId: target.orgId, outcome, reclaimed });

  /**
   * A held sibling's resources as rebalancing may plan from them: read under its lock (so no
   * publish of Serenity's can land after the check), `used` raised to its publish bound inside the
   * window; `undefined` (skipped) when the window rules it out or the read fails.
   */
  const readSibling = async (sibling: SiblingWorkspace): Promise<WorkspaceResources | undefined> => {
    const id = sibling.subWorkspaceId;
    const publish = (await findLastPublishes(deps.db, [id], publishWindowOf(deps))).get(id);
    if (publish?.inWindow && !publish.bound) {
      emit("publishLag");
      return undefined;
    }
    let read: WorkspaceResources;
    try {
      read = await observeResources(deps, target, id);
    } catch (error) {
      log.info({ err: error, sibling: id }, "allocation: rebalance skipped a sibling whose read failed");
      emit("failed");
      return undefined;
    }
    const planned = withinPublishBound(read, publish);
    if (!planned) {
      log.info(
        { sibling: id, read, bound: publish?.bound },
        "allocation: rebalance skipped a sibling: usage moved by a write Serenity did not make",
      );
      emit("publishLag");
    }
    return planned;
  };

  /** One sibling lowered to `lowered.targets` (under its lock), with its ledger row; the units it gave. */
  const lowerSibling = async (
    sibling: SiblingWorkspace,
    resources: WorkspaceResources,
    lowered: { targets: TransferTargets; reclaimed: Units },
  ): Promise<Units> => {
    const at: AllocationTarget = {
      ...target,
      brandId: sibling.brandId,
      subWorkspaceId: sibling.subWorkspaceId,
    };
    // Fail fast even on a job's path: a not-ready sibling is skipped, not waited for under locks.
    const outcome = await transferAndRecord(deps, at, {
      reason: "rebalance",
      resources,
      targets: lowered.targets,
      path: "failFast",
      errorCodeOf: (error) => releaseErrorCodeOf(deps.upstream, error) ?? "unexpected",
    });
    if (!outcome.applied) {
      log.info(
        { err: outcome.error, sibling: sibling.subWorkspaceId, settled: outcome.settled },
        "allocation: rebalance could not lower a sibling",
      );
      emit("failed");
      return { ...ZERO_UNITS };
    }
    log.info(
      { sibling: sibling.subWorkspaceId, before: totalsOf(resources), targets: lowered.targets },
      outcome.lostAnswer
        ? "allocation: rebalance lowered a sibling (settled by a read after a lost answer)"
        : "allocation: rebalance lowered a sibling",
    );
    emit("lowered", lowered.reclaimed);
    return lowered.reclaimed;
  };

  const source = deps.siblings ?? databaseSiblings(deps);
  const all = (await source(target.orgId)).filter(
    (sibling) => sibling.subWorkspaceId !== target.subWorkspaceId,
  );
  const known = await knownSiblings(deps, target.orgId, all);

  const reclaimed = { ...ZERO_UNITS };
  const stillShort = () => {
    const left = { ...ZERO_UNITS };
    for (const dimension of DIMENSIONS)
      left[dimension] = Math.max(0, shortfall[dimension] - reclaimed[dimension]);
    return left;
  };
  const { ranked, lagging } = rankSiblings(all, known, stillShort());
  for (let i = 0; i < lagging; i++) emit("publishLag");
  let tried = 0;
  for (const sibling of ranked) {
    if (!DIMENSIONS.some((dimension) => stillShort()[dimension] > 0)) break;
    if (tried >= REBALANCE_MAX_SIBLINGS) break;
    tried += 1;
    const waitMs = sibling.subWorkspaceId < target.subWorkspaceId ? 0 : REBALANCE_LOCK_WAIT_MS;
    const lease = await deps.lock.tryAcquire(sibling.subWorkspaceId, waitMs);
    if (!lease) {
      emit("busy");
      continue;
    }
    try {
      const resources = await readSibling(sibling);
      if (!resources) continue;
      const lowered = planRebalance([{ id: sibling.subWorkspaceId, resources }], stillShort()).lowered[0];
      if (!lowered) {
        emit("notNeeded");
        continue;
      }
      const moved = await lowerSibling(sibling, resources, lowered);
      for (const dimension of DIMENSIONS) reclaimed[dimension] += moved[dimension];
    } finally {
      await lease.release();
    }
  }
  return reclaimed;
}

/** What the record and the publish log say of each sibling, before any lock is taken. */
interface KnownSibling {
  observation?: ResourceObservation;
  publish?: LastPublish;
}

async function knownSiblings(
  deps: AllocationDeps,
  orgId: string,
  siblings: SiblingWorkspace[],
): Promise<Map<string, KnownSibling>> {
  const ids = siblings.map((sibling) => sibling.subWorkspaceId);
  const [observations, publishes] = await Promise.all([
    listOrgObservations(deps.db, orgId),
    findLastPublishes(deps.db, ids, publishWindowOf(deps)),
  ]);
  // An entry that holds no read (only a publish or an announcement) tells nothing of its slack.
  const byId = new Map(
    observations.filter(holdsResources).map((observation) => [observation.workspaceId, observation]),
  );
  return new Map(ids.map((id) => [id, { observation: byId.get(id), publish: publishes.get(id) }]));
}

/**
 * The order siblings are tried in: the largest known slack in the short dimensions first (each
 * dimension weighed by the share of its shortfall it would cover), then the freshest entry;
 * entries without slack are dropped, siblings without an entry come last, in id order. `lagging`
 * counts the siblings dropped because their publish window rules their entry out.
 */
function rankSiblings(
  siblings: SiblingWorkspace[],
  known: Map<string, KnownSibling>,
  shortfall: Units,
): { ranked: SiblingWorkspace[]; lagging: number } {
  let lagging = 0;
  const scored: { sibling: SiblingWorkspace; score: number; observedAt: number }[] = [];
  const unknown: SiblingWorkspace[] = [];
  for (const sibling of siblings) {
    const entry = known.get(sibling.subWorkspaceId);
    if (!entry?.observation) {
      unknown.push(sibling);
      continue;
    }
    const resources = estimateFromRecord(entry);
    if (!resources) {
      lagging += 1;
      continue;
    }
    const slack = siblingSlack(resources);
    let score = 0;
    for (const dimension of DIMENSIONS) {
      if (shortfall[dimension] > 0) {
        score += Math.min(slack[dimension], shortfall[dimension]) / shortfall[dimension];
      }
    }
    if (score > 0) scored.push({ sibling, score, observedAt: entry.observation.observedAt.getTime() });
  }
  scored.sort((a, b) => b.score - a.score || b.observedAt - a.observedAt);
  unknown.sort((a, b) => (a.subWorkspaceId < b.subWorkspaceId ? -1 : 1));
  return { ranked: [...scored.map(({ sibling }) => sibling), ...unknown], lagging };
}

/**
 * A sibling's resources as its record entry suggests, for ranking only (the read under its lock
 * decides). An entry the last publish came after still counts the published units as `drafted`
 * (the section staged them): inside the window they are `used` up to the publish's bound.
 */
function estimateFromRecord(entry: KnownSibling): WorkspaceResources | undefined {
  const observation = entry.observation!;
  const publish = entry.publish;
  if (!publish || observation.observedAt > publish.publishedAt) {
    return withinPublishBound(observation.resources, publish);
  }
  const staged = observation.resources;
  const asPublished: WorkspaceResources = {
    projects: {
      used: staged.projects.used + staged.projects.drafted,
      drafted: 0,
      total: staged.projects.total,
    },
    prompts: { used: staged.prompts.used + staged.prompts.drafted, drafted: 0, total: staged.prompts.total },
  };
  return withinPublishBound(asPublished, publish) ?? asPublished;
}
