import { randomUUID } from "node:crypto";

import type { AllocationService } from "../allocation/allocationService.ts";
import type { AllocationUpstream } from "../allocation/upstreamPort.ts";
import { insertLedgerEntry } from "../db/allocation/insertLedgerEntry.ts";
import type { Db } from "../db/database.ts";
import { dropStaleReservation } from "../db/upstreamReconcile/dropStaleReservation.ts";
import { forgetOrphanSighting } from "../db/upstreamReconcile/forgetOrphanSighting.ts";
import { readUpstreamClaims } from "../db/upstreamReconcile/readUpstreamClaims.ts";
import {
  type OrphanSighting,
  recordOrphanSightings,
  sightingKey,
} from "../db/upstreamReconcile/recordOrphanSightings.ts";
import { DEACTIVATION_FLOOR, RELEASE_FLOOR, type Units } from "../domain/allocation.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import {
  projectOrphans,
  staleRollbacks,
  subWorkspaceProvenance,
  type UpstreamClaims,
} from "../domain/upstreamOrphans.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { BrandLease } from "../markets/brandLease.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { listAllProjects, observeUpstream, type UpstreamObservation } from "./observeUpstream.ts";

/**
 * The upstream reconciler's "compare and act" half (spec/provisioning.md §9, ADR 0016), for one org
 * whose run the caller holds (src/operations/upstreamReconcileSchedule.ts): observe, record the
 * orphans' sightings, and reclaim each one first seen at least `graceMs` ago — an orphan
 * sub-workspace is emptied (every project deleted) and released to the deactivation floor, an
 * orphan project is deleted and its sub-workspace released to the release floor. Each action is a
 * ledger row with reason `reconcile`. Acting on a thing of a brand takes that brand's lease (ADR
 * 0015) without waiting: a brand busy with a structural operation keeps its things until the next
 * pass. Under the lease, the records are read again and the thing is skipped if anything tracks or
 * claims it by then.
 */

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
}

export interface OrgReconcileReport {
  orgId: string;
  /** Orphans seen this pass, by kind. */
  orphans: { subWorkspaces: number; projects: number };
  /** Orphans still inside their grace period (seen, left for a later pass). */
  waiting: number;
  reclaimed: { subWorkspaces: number; projects: number };
  /** Failed rollbacks (kept `creating` reservations with a project) finished: project deleted, row dropped. */
  rollbacksRetried: number;
  /** Orphans found tracked or claimed on the second look, left alone. */
  spared: number;
  /**
   * Orphans and failed rollbacks of a brand whose lease another holder had (a structural operation
   * in flight): left for the next pass.
   */
  busy: number;
  failed: number;
  /** Units given back to the parent by this pass's releases. */
  returned: Units;
}

function orphanSightings(observation: UpstreamObservation): OrphanSighting[] {
  return [
    ...observation.subWorkspaces
      .filter((workspace) => workspace.state === "orphan")
      .map((workspace) => ({
        kind: "subWorkspace" as const,
        upstreamId: workspace.id,
        workspaceId: workspace.id,
      })),
    ...observation.projects.map((project) => ({
      kind: "project" as const,
      upstreamId: project.id,
      workspaceId: project.workspaceId,
    })),
  ];
}

/** The brand each orphan belongs to (sightingKey → brand id), as the observation explains it. */
function orphanBrands(observation: UpstreamObservation): Map<string, string | null> {
  return new Map([
    ...observation.subWorkspaces
      .filter((workspace) => workspace.state === "orphan")
      .map(
        (workspace) =>
          [sightingKey({ kind: "subWorkspace", upstreamId: workspace.id }), workspace.brandId] as const,
      ),
    ...observation.projects.map(
      (project) => [sightingKey({ kind: "project", upstreamId: project.id }), project.brandId] as const,
    ),
  ]);
}

export class UpstreamReconciler {
  constructor(private readonly deps: UpstreamReconcilerDeps) {}

  /** Read-only: what the reconciler would see now (the audit's orphans). */
  observe(org: { id: string; parentWorkspaceId: string }, bearer: string): Promise<UpstreamObservation> {
    return observeUpstream(this.deps, org, bearer);
  }

  async reconcileOrg(
    org: { id: string; parentWorkspaceId: string },
    bearer: string,
    options: { graceMs: number },
  ): Promise<OrgReconcileReport> {
    const { clock, db } = this.deps;
    const runId = `reconcile:${randomUUID()}`;
    const log = this.deps.logger.child({ orgId: org.id, runId });
    const observation = await this.observe(org, bearer);
    const sightings = orphanSightings(observation);
    const brandOf = orphanBrands(observation);
    const firstSeen = await recordOrphanSightings(db, { orgId: org.id, now: clock.now(), sightings });
    const report: OrgReconcileReport = {
      orgId: org.id,
      orphans: {
        subWorkspaces: sightings.filter((sighting) => sighting.kind === "subWorkspace").length,
        projects: sightings.filter((sighting) => sighting.kind === "project").length,
      },
      waiting: 0,
      reclaimed: { subWorkspaces: 0, projects: 0 },
      rollbacksRetried: 0,
      spared: 0,
      busy: 0,
      failed: 0,
      returned: { projects: 0, prompts: 0 },
    };
    const context = { org, bearer, runId, log, report };

    for (const sighting of sightings) {
      const seenAt = firstSeen.get(sightingKey(sighting)) ?? clock.now();
      if (clock.now().getTime() - seenAt.getTime() < options.graceMs) {
        report.waiting += 1;
        continue;
      }
      const brandId = brandOf.get(sightingKey(sighting)) ?? null;
      try {
        const acted = await this.#underBrandLease(context, brandId, sighting.upstreamId, async () => {
          // The second look, under the lease: work that finished or started since the observation
          // (a structural operation that held the brand a moment ago) may track or claim it now.
          const claims = await readUpstreamClaims(db, org.id);
          return sighting.kind === "subWorkspace"
            ? this.#reclaimSubWorkspace(context, claims, sighting.upstreamId, brandId)
            : this.#reclaimProject(context, claims, sighting, brandId);
        });
        if (acted === "busy") continue;
        if (!acted) {
          report.spared += 1;
          continue;
        }
        report.reclaimed[sighting.kind === "subWorkspace" ? "subWorkspaces" : "projects"] += 1;
        await forgetOrphanSighting(db, {
          orgId: org.id,
          kind: sighting.kind,
          upstreamId: sighting.upstreamId,
        });
        this.deps.events.emit("upstream.orphanReclaimed", {
          orgId: org.id,
          kind: sighting.kind,
          outcome: "reclaimed",
        });
      } catch (error) {
        report.failed += 1;
        log.warn(
          {
            ...(isGatewayError(error) ? error.toLog() : { err: error }),
            kind: sighting.kind,
            upstreamId: sighting.upstreamId,
          },
          "upstream reconciler: could not reclaim an orphan; the next pass tries again",
        );
        this.deps.events.emit("upstream.orphanReclaimed", {
          orgId: org.id,
          kind: sighting.kind,
          outcome: "failed",
        });
      }
    }
    await this.#retryRollbacks(context, options.graceMs);
    this.deps.events.emit("upstream.orphansSeen", {
      orgId: org.id,
      subWorkspaces: report.orphans.subWorkspaces - report.reclaimed.subWorkspaces,
      projects: report.orphans.projects - report.reclaimed.projects,
    });
    if (sightings.length > 0) log.info({ ...report }, "upstream reconciled");
    return report;
  }

  /**
   * Finishes the rollbacks a create could not finish (ADR 0015 keeps their reservation, `creating`
   * with the project id, so the project stays tracked): once such a row is older than the grace and
   * no live job of its brand may come back for it, delete the project, then drop the row (guarded:
   * a redelivery that reclaimed the row meanwhile keeps it).
   */
  async #retryRollbacks(context: ReconcileContext, graceMs: number): Promise<void> {
    const now = this.deps.clock.now();
    const claims = await readUpstreamClaims(this.deps.db, context.org.id);
    for (const market of staleRollbacks(claims, now, graceMs)) {
      try {
        const finished = await this.#underBrandLease(context, market.brandId, market.id, () =>
          this.#finishRollback(context, market, now, graceMs),
        );
        if (finished !== true) continue;
        context.report.rollbacksRetried += 1;
        this.deps.events.emit("upstream.orphanReclaimed", {
          orgId: context.org.id,
          kind: "project",
          outcome: "reclaimed",
        });
      } catch (error) {
        context.report.failed += 1;
        context.log.warn(
          { ...(isGatewayError(error) ? error.toLog() : { err: error }), marketId: market.id },
          "upstream reconciler: could not finish a failed rollback; the next pass tries again",
        );
        this.deps.events.emit("upstream.orphanReclaimed", {
          orgId: context.org.id,
          kind: "project",
          outcome: "failed",
        });
      }
    }
  }

  /**
   * One failed rollback, under its brand's lease: looked at again (a redelivered job may have
   * finished or taken it while we waited), then its project deleted, the row dropped, the
   * sub-workspace released. `false` = no longer a stale rollback, left alone.
   */
  async #finishRollback(
    context: ReconcileContext,
    market: StaleRollback,
    now: Date,
    graceMs: number,
  ): Promise<boolean> {
    const fresh = staleRollbacks(await readUpstreamClaims(this.deps.db, context.org.id), now, graceMs);
    if (!fresh.some((row) => row.id === market.id && row.projectId === market.projectId)) {
      context.log.debug(
        { marketId: market.id },
        "upstream reconciler: a failed rollback was taken meanwhile",
      );
      return false;
    }
    await this.#deleteProject(context, market.brandId, market.workspaceId, market.projectId);
    const dropped = await dropStaleReservation(this.deps.db, {
      id: market.id,
      projectId: market.projectId,
      updatedBefore: new Date(now.getTime() - graceMs + 1),
    });
    if (market.workspaceId !== context.org.parentWorkspaceId) {
      await this.#release(context, market.brandId, market.workspaceId, RELEASE_FLOOR);
    }
    context.log.info(
      { marketId: market.id, projectId: market.projectId, dropped },
      "upstream reconciler: finished a failed rollback",
    );
    return true;
  }

  /**
   * Runs `work` holding the brand's lease (ADR 0015), taken without waiting; `"busy"` when another
   * holder has it (counted, logged at debug: the next pass takes the thing). Without a brand (a
   * thing no brand's name or record explains as its own), `work` runs as is.
   */
  async #underBrandLease<T>(
    context: ReconcileContext,
    brandId: string | null,
    thingId: string,
    work: () => Promise<T>,
  ): Promise<T | "busy"> {
    if (brandId === null) return work();
    try {
      return await this.deps.brandLease.withBrand(brandId, work, {
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

  async #reclaimSubWorkspace(
    context: ReconcileContext,
    claims: UpstreamClaims,
    workspaceId: string,
    leasedBrand: string | null,
  ): Promise<boolean> {
    const { org, bearer } = context;
    const family = await this.deps.gateway.users.getFamily(bearer, org.parentWorkspaceId);
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

    for (const project of await listAllProjects(this.deps.gateway, bearer, workspaceId)) {
      await this.#deleteProject(context, provenance.brandId, workspaceId, project.id);
    }
    await this.#release(context, provenance.brandId, workspaceId, DEACTIVATION_FLOOR);
    context.log.info(
      { workspaceId, brandId: provenance.brandId },
      "upstream reconciler: reclaimed an orphan sub-workspace",
    );
    return true;
  }

  async #reclaimProject(
    context: ReconcileContext,
    claims: UpstreamClaims,
    sighting: OrphanSighting,
    leasedBrand: string | null,
  ): Promise<boolean> {
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
    const project = (await listAllProjects(this.deps.gateway, bearer, workspaceId)).find(
      (candidate) => candidate.id === upstreamId,
    );
    if (!project) return false;
    const [orphan] = projectOrphans(claims, workspaceId, [project], owner);
    if (!orphan || orphan.brandId !== leasedBrand) return false;
    await this.#deleteProject(context, orphan.brandId, workspaceId, upstreamId);
    if (!inParent) await this.#release(context, owner, workspaceId, RELEASE_FLOOR);
    context.log.info(
      { workspaceId, projectId: upstreamId, name: orphan.name },
      "upstream reconciler: deleted an orphan project",
    );
    return true;
  }

  /** Deletes one project (already gone counts as done) and writes its ledger row. */
  async #deleteProject(
    context: ReconcileContext,
    brandId: string | null,
    workspaceId: string,
    projectId: string,
  ): Promise<void> {
    try {
      await this.deps.gateway.projects.deleteProject(context.bearer, workspaceId, projectId);
    } catch (error) {
      if (!isGatewayError(error, "gone")) {
        await this.#ledger(
          context,
          brandId,
          workspaceId,
          "failed",
          isGatewayError(error) ? error.kind : "unexpected",
        );
        throw error;
      }
    }
    await this.#ledger(context, brandId, workspaceId, "projectDeleted", null);
  }

  async #release(
    context: ReconcileContext,
    brandId: string | null,
    workspaceId: string,
    floor: Units,
  ): Promise<void> {
    const released = await this.deps.allocation.releaseSurplus(
      {
        orgId: context.org.id,
        brandId,
        subWorkspaceId: workspaceId,
        requestId: context.runId,
        bearer: context.bearer,
      },
      { floor, reason: "reconcile", path: "patient" },
    );
    if (released.outcome === "error") {
      throw new Error(`release of ${workspaceId} failed: ${released.errorCode ?? "unexpected"}`);
    }
    context.report.returned.projects += released.returned?.projects ?? 0;
    context.report.returned.prompts += released.returned?.prompts ?? 0;
  }

  async #ledger(
    context: ReconcileContext,
    brandId: string | null,
    workspaceId: string,
    outcome: "projectDeleted" | "failed",
    errorCode: string | null,
  ): Promise<void> {
    try {
      await insertLedgerEntry(this.deps.db, {
        orgId: context.org.id,
        brandId,
        subWorkspaceId: workspaceId,
        reason: "reconcile",
        before: null,
        after: null,
        outcome,
        errorCode,
        requestId: context.runId,
        now: this.deps.clock.now(),
      });
    } catch (error) {
      context.log.error({ err: error, workspaceId, outcome }, "allocation ledger write failed");
    }
  }
}

type StaleRollback = ReturnType<typeof staleRollbacks>[number];

interface ReconcileContext {
  org: { id: string; parentWorkspaceId: string };
  bearer: string;
  runId: string;
  log: Logger;
  report: OrgReconcileReport;
}
