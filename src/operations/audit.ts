import type { DbExecutor } from "../db/database.ts";
import { listOrgs } from "../db/orgs/listOrgs.ts";
import { listQuarantinedOrphans } from "../db/upstreamReconcile/listQuarantinedOrphans.ts";
import {
  DIMENSIONS,
  type DimensionUsage,
  planRelease,
  RELEASE_FLOOR,
  type Units,
} from "../domain/allocation.ts";
import { ServiceError } from "../domain/errors.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import type { Logger } from "../observability/logger.ts";
import type { PoolBrandView, PoolDimension } from "../poolView/poolView.ts";
import type { PoolViewService } from "../poolView/poolViewService.ts";
import type { UpstreamObservation } from "./observeUpstream.ts";

/**
 * `serenity audit` (spec/operations.md §2): how many units sit allocated in sub-workspaces that no
 * usage needs, per brand and per org, and what the pool would have free after a sweep. Read-only
 * upstream: one resources read of each parent and each brand sub-workspace, now (the pool view's
 * bounded fan-out, `PoolViewService.sample(…, "all")`), written to the resources record like every read.
 */

export interface AuditDeps {
  db: DbExecutor;
  logger: Logger;
  poolView: Pick<PoolViewService, "sample">;
  /** The upstream reconciler's read-only half: orphans (spec/provisioning.md §9). */
  orphans?: { observe: OrphanObserver; prompts: PromptCounter };
}

/** Reads what the upstream reconciler sees for one org (UpstreamReconciler.observe). */
export type OrphanObserver = (
  org: { id: string; parentWorkspaceId: string },
  bearer: string,
) => Promise<UpstreamObservation>;
/** How many prompts (draft layer included) a project holds. */
export type PromptCounter = (bearer: string, workspaceId: string, projectId: string) => Promise<number>;

/**
 * An upstream thing Serenity made that no record tracks (ADR 0016), with the units it holds:
 * `orphan` (the reconciler reclaims it once its grace ends), `quarantined` (it holds prompts the
 * reconciler could not re-attach: kept until `serenity reconcile --delete <id>`), `parked` (an
 * empty sub-workspace at the deactivation floor: what a deactivation or a reclaim leaves), `zombie`
 * (never settled).
 */
export interface AuditOrphan {
  kind: "subWorkspace" | "project";
  state: "orphan" | "quarantined" | "parked" | "zombie";
  id: string;
  workspaceId: string;
  /** The title (sub-workspace) or name (project) Serenity gave it. */
  name: string;
  /** The brand its name or records tie it to. */
  brandId: string | null;
  /** A sub-workspace: its allocation (total) and usage; a project: one project and its prompts. */
  units: { projects: DimensionUsage | null; prompts: DimensionUsage | null } | null;
  projects?: number;
  publishStatus?: string;
}

/** A brand of the pool view (stranded units included), with what a sweep would give back. */
export interface AuditBrand extends Omit<PoolBrandView, "error"> {
  /** What a sweep with the default floor would give back; null when the read failed. */
  sweepReturns: Units | null;
  error?: string;
}

export interface AuditOrg {
  orgId: string;
  name: string;
  parentWorkspaceId: string;
  pool: { projects: PoolDimension; prompts: PoolDimension } | null;
  brands: AuditBrand[];
  strandedSum: Units;
  /** Orphans, parked and zombie sub-workspaces (empty when the observation failed: see `orphansError`). */
  orphans: AuditOrphan[];
  /** Units held by the `orphan` entries (sub-workspace totals, one unit per orphan project plus its prompts). */
  orphanSum: Units;
  orphansError?: string;
  /** Pool free plus what a sweep would return to it; null when the pool could not be read. */
  poolFreeAfterSweep: Units | null;
  /** Set when the parent could not be read (the org's numbers are then incomplete). */
  error?: string;
}

export interface AuditReport {
  orgs: AuditOrg[];
  sampledAt: Date;
}

function sweepReturns(brand: PoolBrandView, floor: Units): Units | null {
  if (!brand.projects || !brand.prompts) return null;
  const plan = planRelease({ projects: brand.projects, prompts: brand.prompts }, floor);
  return {
    projects: brand.projects.total - (plan.targets.projects ?? brand.projects.total),
    prompts: brand.prompts.total - (plan.targets.prompts ?? brand.prompts.total),
  };
}

/** An audit is background work (ADR 0019): it yields the account's upstream budget to requests and jobs. */
export function runAudit(
  deps: AuditDeps,
  options: { bearer: string; orgIds?: string[]; floor?: Units; now: () => Date },
): Promise<AuditReport> {
  return asBackgroundWork(() => auditAll(deps, options));
}

async function auditAll(
  deps: AuditDeps,
  options: { bearer: string; orgIds?: string[]; floor?: Units; now: () => Date },
): Promise<AuditReport> {
  const floor = options.floor ?? RELEASE_FLOOR;
  const orgs = (await listOrgs(deps.db, options.orgIds)).filter((org) => org.parentWorkspaceId !== null);
  const results: AuditOrg[] = [];
  for (const org of orgs) {
    const base = { orgId: org.id, name: org.name, parentWorkspaceId: org.parentWorkspaceId! };
    let view;
    try {
      view = await deps.poolView.sample(org, options.bearer, "all");
    } catch (error) {
      deps.logger.warn({ err: error, orgId: org.id }, "audit: pool read failed");
      const code = error instanceof ServiceError ? error.code : "unexpected";
      results.push({
        ...base,
        pool: null,
        brands: [],
        strandedSum: { projects: 0, prompts: 0 },
        orphans: [],
        orphanSum: { projects: 0, prompts: 0 },
        poolFreeAfterSweep: null,
        error: code,
      });
      continue;
    }
    const strandedSum: Units = { projects: 0, prompts: 0 };
    const returnsSum: Units = { projects: 0, prompts: 0 };
    const brands = view.brands.map((brand): AuditBrand => {
      const returns = sweepReturns(brand, floor);
      for (const dimension of DIMENSIONS) {
        strandedSum[dimension] += brand.stranded?.[dimension] ?? 0;
        returnsSum[dimension] += returns?.[dimension] ?? 0;
      }
      return {
        brandId: brand.brandId,
        name: brand.name,
        subWorkspaceId: brand.subWorkspaceId,
        projects: brand.projects,
        prompts: brand.prompts,
        stranded: brand.stranded,
        asOf: brand.asOf,
        sweepReturns: returns,
        ...(brand.error ? { error: brand.error } : {}),
      };
    });
    const pool = view.pool;
    const orphans = await auditOrphans(deps, org, options.bearer);
    results.push({
      ...base,
      pool,
      brands,
      strandedSum,
      ...orphans,
      poolFreeAfterSweep: pool
        ? {
            projects: pool.projects.free + returnsSum.projects,
            prompts: pool.prompts.free + returnsSum.prompts,
          }
        : null,
    });
  }
  return { orgs: results, sampledAt: options.now() };
}

async function auditOrphans(
  deps: AuditDeps,
  org: { id: string; parentWorkspaceId: string | null },
  bearer: string,
): Promise<Pick<AuditOrg, "orphans" | "orphanSum" | "orphansError">> {
  const orphanSum: Units = { projects: 0, prompts: 0 };
  if (!deps.orphans || !org.parentWorkspaceId) return { orphans: [], orphanSum };
  let observation: UpstreamObservation;
  try {
    observation = await deps.orphans.observe(
      { id: org.id, parentWorkspaceId: org.parentWorkspaceId },
      bearer,
    );
  } catch (error) {
    deps.logger.warn({ err: error, orgId: org.id }, "audit: orphan observation failed");
    return {
      orphans: [],
      orphanSum,
      orphansError: error instanceof ServiceError ? error.code : "unavailable",
    };
  }
  const quarantined = new Set(
    (await listQuarantinedOrphans(deps.db, { orgId: org.id })).map((row) => `${row.kind}:${row.upstreamId}`),
  );
  const stateOf = <S extends string>(kind: AuditOrphan["kind"], id: string, state: S) =>
    state === "orphan" && quarantined.has(`${kind}:${id}`) ? "quarantined" : state;
  const orphans: AuditOrphan[] = [];
  for (const workspace of observation.subWorkspaces) {
    if (workspace.state !== "orphan" && workspace.state !== "parked" && workspace.state !== "zombie")
      continue;
    const resources = workspace.resources;
    if (workspace.state === "orphan" && resources) {
      for (const dimension of DIMENSIONS) orphanSum[dimension] += resources[dimension].total;
    }
    orphans.push({
      kind: "subWorkspace",
      state: stateOf("subWorkspace", workspace.id, workspace.state),
      id: workspace.id,
      workspaceId: workspace.id,
      name: workspace.title,
      brandId: workspace.brandId,
      units: resources ? { projects: resources.projects, prompts: resources.prompts } : null,
      ...(workspace.projects === undefined ? {} : { projects: workspace.projects }),
    });
  }
  for (const project of observation.projects) {
    let prompts: number | null = null;
    try {
      prompts = await deps.orphans.prompts(bearer, project.workspaceId, project.id);
    } catch (error) {
      deps.logger.warn({ err: error, orgId: org.id, projectId: project.id }, "audit: prompt count failed");
    }
    const published =
      project.publishStatus === "live" || project.publishStatus === "live_with_unpublished_updates";
    const usage = (units: number): DimensionUsage => ({
      used: published ? units : 0,
      drafted: published ? 0 : units,
      total: units,
    });
    orphanSum.projects += 1;
    orphanSum.prompts += prompts ?? 0;
    orphans.push({
      kind: "project",
      state: stateOf("project", project.id, "orphan"),
      id: project.id,
      workspaceId: project.workspaceId,
      name: project.name,
      brandId: project.brandId,
      units: { projects: usage(1), prompts: prompts === null ? null : usage(prompts) },
      ...(project.publishStatus === undefined ? {} : { publishStatus: project.publishStatus }),
    });
  }
  return { orphans, orphanSum };
}
