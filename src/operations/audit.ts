import type { AllocationService } from "../allocation/allocationService.ts";
import type { PoolBrandView, PoolDimension } from "../allocation/poolView.ts";
import type { DbExecutor } from "../db/database.ts";
import { listOrgs } from "../db/orgs/listOrgs.ts";
import { DIMENSIONS, planRelease, RELEASE_FLOOR, type Units } from "../domain/allocation.ts";
import { ServiceError } from "../domain/errors.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * `serenity audit` (spec/operations.md §2): how many units sit allocated in sub-workspaces that no
 * usage needs, per brand and per org, and what the pool would have free after a sweep. Read-only:
 * one resources read of each parent and each brand sub-workspace (the pool view's bounded fan-out).
 */

export interface AuditDeps {
  db: DbExecutor;
  logger: Logger;
  allocation: Pick<AllocationService, "samplePool">;
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

export async function runAudit(
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
      view = await deps.allocation.samplePool(org, options.bearer);
    } catch (error) {
      deps.logger.warn({ err: error, orgId: org.id }, "audit: pool read failed");
      const code = error instanceof ServiceError ? error.code : "unexpected";
      results.push({
        ...base,
        pool: null,
        brands: [],
        strandedSum: { projects: 0, prompts: 0 },
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
        sweepReturns: returns,
        ...(brand.error ? { error: brand.error } : {}),
      };
    });
    const pool = view.pool;
    results.push({
      ...base,
      pool,
      brands,
      strandedSum,
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
