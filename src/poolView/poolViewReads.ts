import type { AllocationDeps } from "../allocation/allocationDeps.ts";
import { knownPoolFree, learnFromParentRead } from "../allocation/poolFreeBounds.ts";
import { publishWindowOf } from "../allocation/publishBound.ts";
import { observeResources } from "../allocation/resourcesRecord.ts";
import { toServiceError } from "../allocation/upstreamFailures.ts";
import type { OrgRow } from "../db/orgs/orgRow.ts";
import { forgetObservations } from "../db/resourceObservations/forgetObservations.ts";
import { recordTitles } from "../db/resourceObservations/recordTitles.ts";
import { DIMENSIONS } from "../domain/allocation.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import type { PoolHistoryRecorder } from "./poolHistory.ts";
import { poolDimensions, type PoolReadFailure } from "./poolView.ts";

/**
 * Who waits for a pool-view read: `interactive` — a first view of workspaces the record has never
 * seen (the caller is waiting); `background` — the stale-while-revalidate refresh, the sampler and
 * the audit (the upstream budget's background class, docs/decisions/0019).
 */
export type PoolReadPriority = "interactive" | "background";

export interface PoolReadDeps extends AllocationDeps {
  history?: PoolHistoryRecorder;
}

/**
 * THE upstream read of the pool view: every resources read of the view, its refresh, the sampler
 * and the audit comes through here, and so does the parent's family read (`readParentAndFamily`).
 *
 * `priority` goes to the shared upstream budget here and only here (docs/decisions/0019):
 * `background` for refreshes (which a request may start, so they must not inherit its interactive
 * scope and edge deadline), the caller's own scope for a first view's fill. Nothing else in the
 * pool view calls the upstream.
 */
async function readWorkspace(
  deps: PoolReadDeps,
  org: Pick<OrgRow, "id">,
  bearer: string,
  workspaceId: string,
  priority: PoolReadPriority,
  title?: string,
) {
  return atPriority(priority, () => observeResources(deps, { orgId: org.id, bearer }, workspaceId, title));
}

/** A background read runs in the budget's background class; an interactive one keeps its caller's. */
function atPriority<T>(priority: PoolReadPriority, read: () => Promise<T>): Promise<T> {
  return priority === "background" ? asBackgroundWork(read) : read();
}

async function readFamily(
  deps: PoolReadDeps,
  bearer: string,
  parentWorkspaceId: string,
  priority: PoolReadPriority,
): Promise<{ id: string; title: string }[] | undefined> {
  const { upstream } = deps;
  if (!upstream.listChildren) return undefined;
  return atPriority(priority, () => upstream.listChildren!(bearer, parentWorkspaceId));
}

/** Reads one sub-workspace; a classified upstream failure is answered, never thrown. */
export async function readSubWorkspace(
  deps: PoolReadDeps,
  org: Pick<OrgRow, "id">,
  bearer: string,
  workspaceId: string,
  priority: PoolReadPriority,
  title?: string,
): Promise<PoolReadFailure | undefined> {
  try {
    await readWorkspace(deps, org, bearer, workspaceId, priority, title);
    return undefined;
  } catch (error) {
    const kind = deps.upstream.failureKind(error);
    if (kind === undefined) throw error;
    deps.logger.warn(
      { err: error, orgId: org.id, workspaceId, priority },
      "allocation: resources read failed",
    );
    return kind === "forbidden" || kind === "gone" ? "forbidden" : "unavailable";
  }
}

/**
 * Reads the parent (the pool) and its family: records the parent, offers the pool-free gauge and
 * the history a sample, forgets entries of sub-workspaces that are no longer children, and answers
 * the children no brand points at that the record does not know yet (the caller reads those). A
 * failure of either read throws the mapped service error, as the pool cannot be shown without it.
 */
export async function readParentAndFamily(
  deps: PoolReadDeps,
  org: Pick<OrgRow, "id" | "parentWorkspaceId">,
  bearer: string,
  context: { pointed: ReadonlySet<string>; known: ReadonlySet<string>; priority: PoolReadPriority },
): Promise<{ id: string; title: string }[]> {
  const parentId = org.parentWorkspaceId;
  if (!parentId) return [];
  const observedAt = deps.clock.now();
  // What is known of the pool before the read: what the read teaches is recorded against it.
  const known = await knownPoolFree(deps, org.id);
  const sentAtMs = monotonicMsOf(deps.clock);
  let children: { id: string; title: string }[] | undefined;
  try {
    const [resources, family] = await Promise.all([
      readWorkspace(deps, org, bearer, parentId, context.priority),
      readFamily(deps, bearer, parentId, context.priority),
    ]);
    children = family;
    // What the pool holds bounds what a top-up can take, until the next read (poolFreeBounds.ts).
    await learnFromParentRead(deps, org.id, { parent: resources, sentAtMs, known });
    const pool = poolDimensions(resources);
    for (const name of DIMENSIONS) {
      const { total, free } = pool[name];
      deps.events.emit("allocation.poolSampled", {
        orgId: org.id,
        dimension: name,
        freeRatio: total > 0 ? free / total : 0,
      });
    }
    await deps.history?.record(org.id, pool, observedAt);
  } catch (error) {
    deps.logger.warn({ err: error, orgId: org.id }, "allocation: pool read failed");
    throw toServiceError(deps.upstream, error);
  }
  if (!children) return [];
  try {
    await forgetObservations(
      deps.db,
      { orgId: org.id, keep: [parentId, ...context.pointed, ...children.map((child) => child.id)] },
      publishWindowOf(deps),
    );
    await recordTitles(deps.db, { orgId: org.id, titles: children });
  } catch (error) {
    deps.logger.warn({ err: error, orgId: org.id }, "allocation: could not record the parent's family");
  }
  return children.filter((child) => !context.pointed.has(child.id) && !context.known.has(child.id));
}
