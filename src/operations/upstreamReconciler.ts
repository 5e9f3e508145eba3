import { randomUUID } from "node:crypto";

import { readDatabaseNow } from "../db/databaseTime.ts";
import { forgetOrphanSighting } from "../db/upstreamReconcile/forgetOrphanSighting.ts";
import { readUpstreamClaims } from "../db/upstreamReconcile/readUpstreamClaims.ts";
import {
  type OrphanSighting,
  recordOrphanSightings,
  sightingKey,
} from "../db/upstreamReconcile/recordOrphanSightings.ts";
import { abandonedReservations, staleRollbacks } from "../domain/upstreamOrphans.ts";
import { isGatewayError } from "../gateway/errors.ts";
import { DEFAULT_STALE_RESERVATION_MS } from "../markets/marketService.ts";
import { repairIdentityDrift } from "./identityDrift.ts";
import { observeUpstream, type UpstreamObservation } from "./observeUpstream.ts";
import {
  dropAbandonedReservation,
  finishRollback,
  type OrgReconcileReport,
  reclaimProject,
  reclaimSubWorkspace,
  type ReconcileContext,
  underBrandLease,
  type UpstreamReconcilerDeps,
} from "./upstreamReclaim.ts";

export type { OrgReconcileReport, UpstreamReconcilerDeps } from "./upstreamReclaim.ts";

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
    // Sightings are dated and aged on the database's clock: a sighting another process recorded is
    // never aged on this process's clock (docs/decisions/0023).
    const now = await readDatabaseNow(db, clock.databaseTime?.());
    const firstSeen = await recordOrphanSightings(db, { orgId: org.id, now, sightings });
    const report: OrgReconcileReport = {
      orgId: org.id,
      orphans: {
        subWorkspaces: sightings.filter((sighting) => sighting.kind === "subWorkspace").length,
        projects: sightings.filter((sighting) => sighting.kind === "project").length,
      },
      waiting: 0,
      reclaimed: { subWorkspaces: 0, projects: 0 },
      reattached: 0,
      quarantined: 0,
      rollbacksRetried: 0,
      reservationsDropped: 0,
      identityRepaired: 0,
      spared: 0,
      busy: 0,
      failed: 0,
      returned: { projects: 0, prompts: 0 },
    };
    const context = { org, bearer, runId, log, report };

    for (const sighting of sightings) {
      const seenAt = firstSeen.get(sightingKey(sighting)) ?? now;
      if (now.getTime() - seenAt.getTime() < options.graceMs) {
        report.waiting += 1;
        continue;
      }
      const brandId = brandOf.get(sightingKey(sighting)) ?? null;
      try {
        const acted = await underBrandLease(this.deps, context, brandId, sighting.upstreamId, async () => {
          // The second look, under the lease: work that finished or started since the observation
          // (a structural operation that held the brand a moment ago) may track or claim it now.
          const claims = await readUpstreamClaims(db, org.id);
          return sighting.kind === "subWorkspace"
            ? reclaimSubWorkspace(this.deps, context, claims, sighting.upstreamId, brandId)
            : reclaimProject(this.deps, context, claims, sighting, brandId);
        });
        if (acted === "busy") continue;
        if (!acted) {
          report.spared += 1;
          continue;
        }
        if (acted === "quarantined") {
          report.quarantined += 1;
          continue;
        }
        if (acted === "reattached") {
          report.reattached += 1;
          await forgetOrphanSighting(db, {
            orgId: org.id,
            kind: sighting.kind,
            upstreamId: sighting.upstreamId,
          });
          this.deps.events.emit("upstream.orphanReclaimed", {
            orgId: org.id,
            kind: sighting.kind,
            outcome: "reattached",
          });
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
    const identity = this.deps.identity;
    if (identity) await repairIdentityDrift({ ...this.deps, identity }, context);
    this.deps.events.emit("upstream.orphansSeen", {
      orgId: org.id,
      subWorkspaces: report.orphans.subWorkspaces - report.reclaimed.subWorkspaces,
      projects: report.orphans.projects - report.reclaimed.projects - report.reattached,
      quarantined: report.quarantined,
    });
    if (
      sightings.length > 0 ||
      report.rollbacksRetried > 0 ||
      report.reservationsDropped > 0 ||
      report.identityRepaired > 0
    ) {
      log.info({ ...report }, "upstream reconciled");
    }
    return report;
  }

  /**
   * Finishes the rollbacks a create could not finish (ADR 0015 keeps their reservation, `creating`
   * with the project id, so the project stays tracked): once such a row is older than the grace and
   * no live job of its brand may come back for it, delete the project, then drop the row (guarded:
   * a redelivery that reclaimed the row meanwhile keeps it). Then drops the reservations abandoned
   * before they recorded a project, the same way; a project such a create did make is an orphan
   * from the next pass on.
   */
  async #retryRollbacks(context: ReconcileContext, graceMs: number): Promise<void> {
    // On the database's clock, which stamped the reservations (docs/decisions/0023).
    const now = await readDatabaseNow(this.deps.db, this.deps.clock.databaseTime?.());
    const claims = await readUpstreamClaims(this.deps.db, context.org.id);
    for (const market of staleRollbacks(claims, now, graceMs)) {
      try {
        const finished = await underBrandLease(this.deps, context, market.brandId, market.id, () =>
          finishRollback(this.deps, context, market, now, graceMs),
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
    // Never younger than the threshold at which markets themselves call a reservation abandoned:
    // a create that outlived its brand lease must not lose its row to a short test grace.
    const abandonedAfterMs = Math.max(graceMs, DEFAULT_STALE_RESERVATION_MS);
    for (const market of abandonedReservations(claims, now, abandonedAfterMs)) {
      try {
        const dropped = await underBrandLease(this.deps, context, market.brandId, market.id, () =>
          dropAbandonedReservation(this.deps, context, market, now, abandonedAfterMs),
        );
        if (dropped === true) context.report.reservationsDropped += 1;
      } catch (error) {
        context.report.failed += 1;
        context.log.warn(
          { err: error, marketId: market.id },
          "upstream reconciler: could not drop an abandoned reservation; the next pass tries again",
        );
      }
    }
  }
}
