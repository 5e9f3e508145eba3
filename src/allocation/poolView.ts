import { dynamicAllocationEnabled } from "../config/flags.ts";
import type { BrandRow } from "../db/brands/insertBrand.ts";
import { listBrands } from "../db/brands/listBrands.ts";
import type { OrgRow } from "../db/orgs/insertOrg.ts";
import {
  DIMENSIONS,
  type DimensionUsage,
  headroom,
  strandedUnits,
  type Units,
  type WorkspaceResources,
} from "../domain/allocation.ts";
import { boundedMap } from "../gateway/boundedMap.ts";
import type { AllocationDeps } from "./allocationDeps.ts";
import { toServiceError } from "./upstreamFailures.ts";

/** One dimension as the pool view shows it; `free` is headroom, never negative. */
export interface PoolDimension extends DimensionUsage {
  free: number;
}

export interface PoolBrandView {
  brandId: string;
  name: string;
  subWorkspaceId: string;
  projects: PoolDimension | null;
  prompts: PoolDimension | null;
  stranded: Units | null;
  /** Set when this sub-workspace's read failed (the rest of the view still stands). */
  error?: "forbidden" | "unavailable";
}

export interface PoolView {
  dynamicAllocation: boolean;
  /** The org's parent workspace (`null` when the org has none). */
  pool: { projects: PoolDimension; prompts: PoolDimension } | null;
  brands: PoolBrandView[];
  sampledAt: Date;
}

/** Upstream reads in flight at once while building one view. */
export const POOL_VIEW_CONCURRENCY = 4;

function dimension(usage: DimensionUsage): PoolDimension {
  return { used: usage.used, drafted: usage.drafted, total: usage.total, free: Math.max(0, headroom(usage)) };
}

function dimensions(resources: WorkspaceResources) {
  return { projects: dimension(resources.projects), prompts: dimension(resources.prompts) };
}

/**
 * Reads the parent and every brand sub-workspace (bounded concurrency) and computes free and
 * stranded units (spec/allocation.md §8). Emits the pool's free ratio for the gauge.
 */
export async function readPoolView(deps: AllocationDeps, org: OrgRow, bearer: string): Promise<PoolView> {
  const brands = (await listBrands(deps.db, org.id)).filter(
    (brand): brand is BrandRow & { subWorkspaceId: string } =>
      brand.subWorkspaceId !== null && brand.status !== "deleted",
  );
  const readParent = async () => {
    if (!org.parentWorkspaceId) return null;
    try {
      return dimensions(await deps.upstream.readResources(bearer, org.parentWorkspaceId));
    } catch (error) {
      deps.logger.warn({ err: error, orgId: org.id }, "allocation: pool read failed");
      throw toServiceError(deps.upstream, error);
    }
  };
  const readBrand = async (brand: BrandRow & { subWorkspaceId: string }): Promise<PoolBrandView> => {
    const base = { brandId: brand.id, name: brand.name, subWorkspaceId: brand.subWorkspaceId };
    try {
      const resources = await deps.upstream.readResources(bearer, brand.subWorkspaceId);
      return { ...base, ...dimensions(resources), stranded: strandedUnits(resources) };
    } catch (error) {
      const kind = deps.upstream.failureKind(error);
      if (kind === undefined) throw error;
      deps.logger.warn(
        { err: error, orgId: org.id, brandId: brand.id },
        "allocation: brand resources read failed",
      );
      const failed = kind === "forbidden" || kind === "gone" ? "forbidden" : "unavailable";
      return { ...base, projects: null, prompts: null, stranded: null, error: failed };
    }
  };

  const [pool, brandViews] = await Promise.all([
    readParent(),
    boundedMap(brands, POOL_VIEW_CONCURRENCY, readBrand),
  ]);
  if (pool) {
    for (const name of DIMENSIONS) {
      const { total, free } = pool[name];
      deps.events.emit("allocation.poolSampled", {
        orgId: org.id,
        dimension: name,
        freeRatio: total > 0 ? free / total : 0,
      });
    }
  }
  return {
    dynamicAllocation: dynamicAllocationEnabled(deps.env),
    pool,
    brands: brandViews,
    sampledAt: deps.clock.now(),
  };
}
