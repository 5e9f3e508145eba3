import type { AllocationService } from "../allocation/allocationService.ts";
import type { AllocationUpstream } from "../allocation/upstreamPort.ts";
import { insertLedgerEntry } from "../db/allocation/insertLedgerEntry.ts";
import type { Db } from "../db/database.ts";
import { reattachMarket } from "../db/markets/reattachMarket.ts";
import { dropStaleReservation } from "../db/upstreamReconcile/dropStaleReservation.ts";
import { quarantineOrphan } from "../db/upstreamReconcile/quarantineOrphan.ts";
import { readUpstreamClaims } from "../db/upstreamReconcile/readUpstreamClaims.ts";
import type { OrphanKind, OrphanSighting } from "../db/upstreamReconcile/recordOrphanSightings.ts";
import { DEACTIVATION_FLOOR, RELEASE_FLOOR, type Units } from "../domain/allocation.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import {
  abandonedReservations,
  projectOrphans,
  reattachableSlice,
  staleRollbacks,
  subWorkspaceProvenance,
  type UpstreamClaims,
} from "../domain/upstreamOrphans.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { BrandLease } from "../locks/brandLease.ts";
import type { MarketIdentitySyncDeps } from "../markets/marketIdentity.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { listAllProjects } from "./observeUpstream.ts";

/**
 * The upstream reconciler's actions on one thing (ADR 0016), each run by the pass in
 * upstreamReconciler.ts: re-attach an orphan project to the market slice it was made for (a row a
 * restore took away), reclaim an orphan sub-workspace (its empty projects deleted, units released
 * to the deactivation floor), delete an orphan project that holds no prompts (its sub-workspace
 * released to the release floor), finish a failed rollback — each under the thing's brand lease,
 * each after a second look at the records, each deletion a ledger row with reason `reconcile`.
 * Customer data is never deleted on the reconciler's own judgement: a thing holding prompts that
 * cannot be re-attached is quarantined (kept, reported by `serenity audit`, counted), and only
 * `serenity reconcile --delete <id>` removes it.
 */

/** What acting on one orphan came to; `false` = spared (tracked or claimed on the second look). */
export type ReclaimOutcome = "reclaimed" | "reattached" | "quarantined" | false;

/**
 * How long the reconciler waits for a brand's lease: not at all. A reconciler must never queue
 * behind a user's request, nor hold up the other brands and orgs of its pass; a busy brand's
 * orphans wait for the next pass (they are in no hurry, their grace has already run).
 */
export const RECONCILER_BRAND_LEASE_WAIT_MS = 0;

export interface UpstreamReconcilerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  gateway: Pick<GatewayClient, "users" | "projects">;
  upstream: Pick<AllocationUpstream, "readResources">;
  allocation: Pick<AllocationService, "releaseSurplus">;
  brandLease: BrandLease;
  /** The drift repair of brand identities (docs/decisions/0041); without it, no market is re-synced. */
  identity?: MarketIdentitySyncDeps;
}

export interface OrgReconcileReport {
  orgId: string;
  /** Orphans seen this pass, by kind. */
  orphans: { subWorkspaces: number; projects: number };
  /** Orphans still inside their grace period (seen, left for a later pass). */
  waiting: number;
  reclaimed: { subWorkspaces: number; projects: number };
  /** Orphan projects given back their market row (the slice was free): tracked again, kept. */
  reattached: number;
  /** Orphans holding prompts that could not be re-attached: kept, reported, left to an operator. */
  quarantined: number;
  /** Failed rollbacks (kept `creating` reservations with a project) finished: project deleted, row dropped. */
  rollbacksRetried: number;
  /** Abandoned reservations (`creating`, no project id) dropped, so they claim nothing any more. */
  reservationsDropped: number;
  /** Orphans found tracked or claimed on the second look, left alone. */
  spared: number;
  /**
   * Orphans and failed rollbacks of a brand whose lease another holder had (a structural operation
   * in flight): left for the next pass.
   */
  busy: number;
  failed: number;
  /** Markets whose identity upstream differed from their brand's and was re-synced (ADR 0041). */
  identityRepaired: number;
  /** Units given back to the parent by this pass's releases. */
  returned: Units;
}

export type StaleRollback = ReturnType<typeof staleRollbacks>[number];

/** One org's pass as the actions see it: who, with what bearer, under which run id, its report. */
export interface ReconcileContext {
  org: { id: string; parentWorkspaceId: string };
  bearer: string;
  runId: string;
  log: Logger;
  report: OrgReconcileReport;
}
/**
 * One failed rollback, under its brand's lease: looked at again (a redelivered job may have
 * finished or taken it while we waited), then its project deleted, the row dropped, the
 * sub-workspace released. `false` = no longer a stale rollback, left alone.
 */
export async function finishRollback(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  market: StaleRollback,
  now: Date,
  graceMs: number,
): Promise<boolean> {
  const fresh = staleRollbacks(await readUpstreamClaims(deps.db, context.org.id), now, graceMs);
  if (!fresh.some((row) => row.id === market.id && row.projectId === market.projectId)) {
    context.log.debug({ marketId: market.id }, "upstream reconciler: a failed rollback was taken meanwhile");
    return false;
  }
  await deleteProject(deps, context, market.brandId, market.workspaceId, market.projectId);
  const dropped = await dropStaleReservation(deps.db, {
    id: market.id,
    projectId: market.projectId,
    updatedBefore: new Date(now.getTime() - graceMs + 1),
  });
  if (market.workspaceId !== context.org.parentWorkspaceId) {
    await release(deps, context, market.brandId, market.workspaceId, RELEASE_FLOOR);
  }
  context.log.info(
    { marketId: market.id, projectId: market.projectId, dropped },
    "upstream reconciler: finished a failed rollback",
  );
  return true;
}

/**
 * One abandoned reservation, under its brand's lease: looked at again (a create may have taken it
 * up meanwhile), then dropped. `false` = no longer abandoned, left alone.
 */
export async function dropAbandonedReservation(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  market: UpstreamClaims["markets"][number],
  now: Date,
  graceMs: number,
): Promise<boolean> {
  const fresh = abandonedReservations(await readUpstreamClaims(deps.db, context.org.id), now, graceMs);
  if (!fresh.some((row) => row.id === market.id)) return false;
  const dropped = await dropStaleReservation(deps.db, {
    id: market.id,
    projectId: null,
    updatedBefore: new Date(now.getTime() - graceMs + 1),
  });
  if (dropped) {
    context.log.info(
      { marketId: market.id, brandId: market.brandId, workspaceId: market.workspaceId },
      "upstream reconciler: dropped an abandoned market reservation",
    );
  }
  return dropped;
}

/**
 * Runs `work` holding the brand's lease (ADR 0015), taken without waiting; `"busy"` when another
 * holder has it (counted, logged at debug: the next pass takes the thing). Without a brand (a
 * thing no brand's name or record explains as its own), `work` runs as is.
 */
export async function underBrandLease<T>(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  brandId: string | null,
  thingId: string,
  work: () => Promise<T>,
): Promise<T | "busy"> {
  if (brandId === null) return work();
  try {
    return await deps.brandLease.withBrand(brandId, work, {
      waitMs: RECONCILER_BRAND_LEASE_WAIT_MS,
    });
  } catch (error) {
    // Only the lease's own refusal: nothing inside `work` answers brandBusy.
    if (!(error instanceof ServiceError && error.code === "brandBusy")) throw error;
    context.report.busy += 1;
    context.log.debug(
      { brandId, id: thingId },
      "upstream reconciler: the brand is busy; left for the next pass",
    );
    return "busy";
  }
}

/**
 * An orphan sub-workspace, looked at again (still a child of the parent, still untracked and
 * unclaimed, still the leased brand's): every project deleted, then released to the deactivation
 * floor. `false` = spared.
 */
export async function reclaimSubWorkspace(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  claims: UpstreamClaims,
  workspaceId: string,
  leasedBrand: string | null,
): Promise<ReclaimOutcome> {
  const { org, bearer } = context;
  const family = await deps.gateway.users.getFamily(bearer, org.parentWorkspaceId);
  const child = family.find((workspace) => workspace.id === workspaceId);
  if (!child) return false;
  const provenance = subWorkspaceProvenance(claims, org.parentWorkspaceId, {
    id: child.id,
    title: child.title,
    ready: true,
    parentId: child.parentId,
  });
  if (!provenance || provenance.tracked || provenance.claimed) return false;
  // Now explained as another brand's (renamed, re-pointed): not under our lease; the next pass.
  if (provenance.brandId !== leasedBrand) return false;

  const kept: string[] = [];
  for (const project of await listAllProjects(deps.gateway, bearer, workspaceId)) {
    if ((await promptsHeld(deps, bearer, workspaceId, project.id)) > 0) {
      kept.push(project.id);
      continue;
    }
    await deleteProject(deps, context, provenance.brandId, workspaceId, project.id);
  }
  if (kept.length > 0) {
    // Its units stay where they are too: they are what the kept projects use.
    return quarantine(deps, context, "subWorkspace", workspaceId, { workspaceId, projectIds: kept });
  }
  await release(deps, context, provenance.brandId, workspaceId, DEACTIVATION_FLOOR);
  context.log.info(
    { workspaceId, brandId: provenance.brandId },
    "upstream reconciler: reclaimed an orphan sub-workspace",
  );
  return "reclaimed";
}

/**
 * An orphan project in the parent or in a sub-workspace a brand tracks, looked at again: given its
 * market row back when it is a published market project of that brand whose slice has no row
 * (reattachableSlice); else deleted if it holds no prompts (a draft a failed create left), its
 * sub-workspace released to the release floor; else quarantined. `false` = spared.
 */
export async function reclaimProject(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  claims: UpstreamClaims,
  sighting: OrphanSighting,
  leasedBrand: string | null,
): Promise<ReclaimOutcome> {
  const { org, bearer } = context;
  const { workspaceId, upstreamId } = sighting;
  const inParent = workspaceId === org.parentWorkspaceId;
  const owner = inParent
    ? null
    : (claims.brands.find((brand) => brand.status !== "deleted" && brand.subWorkspaceId === workspaceId)
        ?.id ?? null);
  // Only in the parent or in a sub-workspace a brand still tracks; an untracked sub-workspace is
  // reclaimed as a whole instead.
  if (!inParent && owner === null) return false;
  const project = (await listAllProjects(deps.gateway, bearer, workspaceId)).find(
    (candidate) => candidate.id === upstreamId,
  );
  if (!project) return false;
  const [orphan] = projectOrphans(claims, workspaceId, [project], owner);
  if (!orphan || orphan.brandId !== leasedBrand) return false;
  const slice = reattachableSlice(claims, org.parentWorkspaceId, orphan);
  if (slice && (await reattachMarket(deps.db, { ...slice, projectId: upstreamId, now: deps.clock.now() }))) {
    context.log.warn(
      { workspaceId, projectId: upstreamId, brandId: slice.brandId, geoTargetId: slice.geoTargetId },
      "upstream reconciler: re-attached an untracked market project to its brand (a lost market row)",
    );
    return "reattached";
  }
  if ((await promptsHeld(deps, bearer, workspaceId, upstreamId)) > 0) {
    return quarantine(deps, context, "project", upstreamId, { workspaceId, name: orphan.name });
  }
  await deleteProject(deps, context, orphan.brandId, workspaceId, upstreamId);
  if (!inParent) await release(deps, context, owner, workspaceId, RELEASE_FLOOR);
  context.log.info(
    { workspaceId, projectId: upstreamId, name: orphan.name },
    "upstream reconciler: deleted an orphan project (it held no prompts)",
  );
  return "reclaimed";
}

/**
 * What an operator's delete of a quarantined thing does (src/operations/deleteQuarantined.ts): a
 * project is deleted and its sub-workspace (not the parent) released to the release floor; a
 * sub-workspace loses every project and is released to the deactivation floor.
 */
export async function deleteQuarantinedThing(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  brandId: string | null,
  thing: { kind: OrphanKind; upstreamId: string; workspaceId: string },
): Promise<true> {
  if (thing.kind === "project") {
    await deleteProject(deps, context, brandId, thing.workspaceId, thing.upstreamId);
    if (thing.workspaceId !== context.org.parentWorkspaceId) {
      await release(deps, context, brandId, thing.workspaceId, RELEASE_FLOOR);
    }
    return true;
  }
  for (const project of await listAllProjects(deps.gateway, context.bearer, thing.workspaceId)) {
    await deleteProject(deps, context, brandId, thing.workspaceId, project.id);
  }
  await release(deps, context, brandId, thing.workspaceId, DEACTIVATION_FLOOR);
  return true;
}

/** How many prompts a project holds, drafts included (one page of one, its total). */
async function promptsHeld(
  deps: UpstreamReconcilerDeps,
  bearer: string,
  workspaceId: string,
  projectId: string,
): Promise<number> {
  const page = await deps.gateway.projects.listPrompts(bearer, workspaceId, projectId, {
    limit: 1,
    draft: true,
  });
  return page.total;
}

/** Keeps an orphan that holds prompts: its sighting marked, counted and logged the first time. */
async function quarantine(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  kind: OrphanKind,
  upstreamId: string,
  details: Record<string, unknown>,
): Promise<"quarantined"> {
  const newly = await quarantineOrphan(deps.db, {
    orgId: context.org.id,
    kind,
    upstreamId,
    now: deps.clock.now(),
  });
  if (newly) {
    context.log.warn(
      { kind, upstreamId, ...details },
      "upstream reconciler: quarantined an orphan that holds prompts; kept until an operator runs serenity reconcile --delete",
    );
    deps.events.emit("upstream.orphanReclaimed", { orgId: context.org.id, kind, outcome: "quarantined" });
  }
  return "quarantined";
}

/** Deletes one project (already gone counts as done) and writes its ledger row. */
async function deleteProject(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  brandId: string | null,
  workspaceId: string,
  projectId: string,
): Promise<void> {
  try {
    await deps.gateway.projects.deleteProject(context.bearer, workspaceId, projectId);
  } catch (error) {
    if (!isGatewayError(error, "gone")) {
      await ledger(
        deps,
        context,
        brandId,
        workspaceId,
        "failed",
        isGatewayError(error) ? error.kind : "unexpected",
      );
      throw error;
    }
  }
  await ledger(deps, context, brandId, workspaceId, "projectDeleted", null);
}

async function release(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  brandId: string | null,
  workspaceId: string,
  floor: Units,
): Promise<void> {
  const released = await deps.allocation.releaseSurplus(
    {
      orgId: context.org.id,
      brandId,
      subWorkspaceId: workspaceId,
      requestId: context.runId,
      bearer: context.bearer,
    },
    { floor, reason: "reconcile", path: "settle" },
  );
  if (released.outcome === "error") {
    throw new Error(`release of ${workspaceId} failed: ${released.errorCode ?? "unexpected"}`);
  }
  context.report.returned.projects += released.returned?.projects ?? 0;
  context.report.returned.prompts += released.returned?.prompts ?? 0;
}

async function ledger(
  deps: UpstreamReconcilerDeps,
  context: ReconcileContext,
  brandId: string | null,
  workspaceId: string,
  outcome: "projectDeleted" | "failed",
  errorCode: string | null,
): Promise<void> {
  try {
    await insertLedgerEntry(deps.db, {
      orgId: context.org.id,
      brandId,
      subWorkspaceId: workspaceId,
      reason: "reconcile",
      before: null,
      after: null,
      outcome,
      errorCode,
      requestId: context.runId,
      now: deps.clock.now(),
    });
  } catch (error) {
    context.log.error({ err: error, workspaceId, outcome }, "allocation ledger write failed");
  }
}
