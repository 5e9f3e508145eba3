import { durationMs, type FlagSource } from "../config/flags.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import type { OrgRow } from "../db/orgs/orgRow.ts";
import { holdsResources, type ResourceObservation } from "../db/resourceObservations/observationRow.ts";
import {
  type DimensionUsage,
  headroom,
  strandedUnits,
  type Units,
  type WorkspaceResources,
} from "../domain/allocation.ts";
import { type OrgMetering, UNKNOWN_METERING } from "../domain/metering.ts";

/** One dimension as the pool view shows it; `free` is headroom, never negative. */
export interface PoolDimension extends DimensionUsage {
  free: number;
}

/** Why a workspace has no entry to show: its read failed (the rest of the view still stands). */
export type PoolReadFailure = "forbidden" | "unavailable";

export interface PoolBrandView {
  brandId: string;
  name: string;
  subWorkspaceId: string;
  projects: PoolDimension | null;
  prompts: PoolDimension | null;
  stranded: Units | null;
  /** When these numbers were learned (the entry's `observedAt`); `null` when there is none. */
  asOf: Date | null;
  /** Set when this sub-workspace has no entry because its read failed. */
  error?: PoolReadFailure;
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
  asOf: Date | null;
  error?: PoolReadFailure;
}

export interface PoolParentView {
  projects: PoolDimension;
  prompts: PoolDimension;
  asOf: Date;
}

/**
 * What allocation does for the org now (spec/allocation.md §13): `justInTime` — the switch is on
 * and the parent meters AI (or its metering is not known yet, treated as metered); `notNeeded` —
 * the parent does not meter AI, so nothing is allocated and no write is refused for quota (what
 * brands still hold was allocated while it metered: harmless, the sweep may release it); `off` —
 * the switch is off.
 */
export type OrgAllocation = "justInTime" | "notNeeded" | "off";

export function orgAllocation(dynamicAllocation: boolean, metering: OrgMetering): OrgAllocation {
  if (metering.state === "unmetered") return "notNeeded";
  return dynamicAllocation ? "justInTime" : "off";
}

export interface PoolView {
  dynamicAllocation: boolean;
  /** The parent's AI metering and when it was read, from the parent's entry (unknown without one). */
  metering: OrgMetering;
  allocation: OrgAllocation;
  /** The org's parent workspace (`null` when the org has none). */
  pool: PoolParentView | null;
  brands: PoolBrandView[];
  unattached: PoolUnattachedView[];
  /** When this view was put together (each entry's own age is its `asOf`). */
  sampledAt: Date;
}

/** How old an entry may be before a view refreshes it in the background (30 s). */
export const DEFAULT_POOL_VIEW_MAX_AGE_MS = 30_000;

export function poolViewMaxAgeMs(env?: FlagSource): number {
  return durationMs("SERENITY_POOL_VIEW_MAX_AGE_MS", DEFAULT_POOL_VIEW_MAX_AGE_MS, env);
}

function dimension(usage: DimensionUsage): PoolDimension {
  return { used: usage.used, drafted: usage.drafted, total: usage.total, free: Math.max(0, headroom(usage)) };
}

export function poolDimensions(resources: WorkspaceResources) {
  return { projects: dimension(resources.projects), prompts: dimension(resources.prompts) };
}

/** A brand the view lists: it has a sub-workspace and is not deleted. */
export type PooledBrand = BrandRow & { subWorkspaceId: string };

export function pooledBrands(brands: readonly BrandRow[]): PooledBrand[] {
  return brands.filter(
    (brand): brand is PooledBrand => brand.subWorkspaceId !== null && brand.status !== "deleted",
  );
}

/**
 * The view from the resources record (spec/allocation.md §8, §12): the parent's entry, one per
 * brand sub-workspace, and every other entry of the org as an unattached sub-workspace (the
 * parent's family read put them there). `failures` are this caller's reads that found nothing to
 * record; a workspace with neither an entry nor a failure reads `unavailable`.
 */
export function composePoolView(input: {
  org: Pick<OrgRow, "parentWorkspaceId">;
  brands: readonly BrandRow[];
  observations: readonly ResourceObservation[];
  failures: ReadonlyMap<string, PoolReadFailure>;
  dynamicAllocation: boolean;
  now: Date;
}): PoolView {
  const { org, failures } = input;
  const parentEntry = org.parentWorkspaceId
    ? input.observations.find((entry) => entry.workspaceId === org.parentWorkspaceId)
    : undefined;
  // An entry holding no read (only the parent's metering, a publish or an announcement made before
  // any read of its workspace) shows nothing: it is as if there were no entry.
  const read = input.observations.filter(holdsResources);
  const byWorkspace = new Map(read.map((entry) => [entry.workspaceId, entry]));
  const pooled = pooledBrands(input.brands);
  const pointed = new Set(pooled.map((brand) => brand.subWorkspaceId));
  const parent = org.parentWorkspaceId ? byWorkspace.get(org.parentWorkspaceId) : undefined;

  const brands = pooled.map((brand): PoolBrandView => {
    const base = { brandId: brand.id, name: brand.name, subWorkspaceId: brand.subWorkspaceId };
    const entry = byWorkspace.get(brand.subWorkspaceId);
    if (!entry) {
      const error = failures.get(brand.subWorkspaceId) ?? "unavailable";
      return { ...base, projects: null, prompts: null, stranded: null, asOf: null, error };
    }
    return {
      ...base,
      ...poolDimensions(entry.resources),
      stranded: strandedUnits(entry.resources),
      asOf: entry.observedAt,
    };
  });
  const unattached = read
    .filter((entry) => entry.workspaceId !== org.parentWorkspaceId && !pointed.has(entry.workspaceId))
    .sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0))
    .map((entry): PoolUnattachedView => ({
      subWorkspaceId: entry.workspaceId,
      title: entry.title ?? "",
      brandId: input.brands.find((brand) => brand.name === entry.title)?.id ?? null,
      ...poolDimensions(entry.resources),
      asOf: entry.observedAt,
    }));
  const metering = parentEntry?.metering ?? UNKNOWN_METERING;
  return {
    dynamicAllocation: input.dynamicAllocation,
    metering,
    allocation: orgAllocation(input.dynamicAllocation, metering),
    pool: parent ? { ...poolDimensions(parent.resources), asOf: parent.observedAt } : null,
    brands,
    unattached,
    sampledAt: input.now,
  };
}
