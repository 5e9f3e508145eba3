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

/**
 * A direct child of the org's parent that no brand points at: what a deactivation leaves (its
 * allocation released to the floor, spec/allocation.md §7), an orphan the upstream reconciler has
 * not reclaimed yet, or another team's sub-workspace. Its allocation is taken from the pool like a
 * brand's, so the view lists it: `pool.total + Σ brands' totals + Σ unattached totals` is the
 * parent's whole pool.
 */
export interface PoolUnattachedView {
  subWorkspaceId: string;
  title: string;
  /** The brand whose name it bears (a deactivated brand's former sub-workspace), if any. */
  brandId: string | null;
  projects: PoolDimension | null;
  prompts: PoolDimension | null;
  error?: "forbidden" | "unavailable";
}

export interface PoolView {
  dynamicAllocation: boolean;
  /** The org's parent workspace (`null` when the org has none). */
  pool: { projects: PoolDimension; prompts: PoolDimension } | null;
  brands: PoolBrandView[];
  unattached: PoolUnattachedView[];
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
  const allBrands = await listBrands(deps.db, org.id);
  const brands = allBrands.filter(
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

  const readUnattached = async (): Promise<PoolUnattachedView[]> => {
    if (!org.parentWorkspaceId || !deps.upstream.listChildren) return [];
    const pointed = new Set(brands.map((brand) => brand.subWorkspaceId));
    let children;
    try {
      children = await deps.upstream.listChildren(bearer, org.parentWorkspaceId);
    } catch (error) {
      deps.logger.warn({ err: error, orgId: org.id }, "allocation: family read failed");
      throw toServiceError(deps.upstream, error);
    }
    const unattached = children.filter((child) => !pointed.has(child.id));
    return boundedMap(unattached, POOL_VIEW_CONCURRENCY, async (child): Promise<PoolUnattachedView> => {
      const base = {
        subWorkspaceId: child.id,
        title: child.title,
        brandId: allBrands.find((brand) => brand.name === child.title)?.id ?? null,
      };
      try {
        return { ...base, ...dimensions(await deps.upstream.readResources(bearer, child.id)) };
      } catch (error) {
        const kind = deps.upstream.failureKind(error);
        if (kind === undefined) throw error;
        const failed = kind === "forbidden" || kind === "gone" ? "forbidden" : "unavailable";
        return { ...base, projects: null, prompts: null, error: failed };
      }
    });
  };

  const [pool, brandViews, unattached] = await Promise.all([
    readParent(),
    boundedMap(brands, POOL_VIEW_CONCURRENCY, readBrand),
    readUnattached(),
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
    unattached,
    sampledAt: deps.clock.now(),
  };
}
