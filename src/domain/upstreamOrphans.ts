/**
 * Which upstream things are orphans (spec/provisioning.md §9, ADR 0016): pure rules, no I/O.
 *
 * Terminology. A thing under an org's parent is *Serenity's* (provenance) when Serenity's records
 * or the names it gives point at it: a direct child of the parent titled with the name of one of the
 * org's brands (the title every create gives, src/provisioning), or one Serenity's records name (a
 * brand pointer or attempt candidate, a market row, a ledger row); a project named
 * `<brand name> <country> <language>` (src/markets/createMarket.ts). It is *tracked* when a live
 * record points at it (a brand that is not deleted, by its sub-workspace pointer; a market row, by
 * its project id). It is *claimed* when work in flight may be about to track it: a pending
 * provisioning attempt or a live job of a brand it belongs to, a market reservation (`creating`)
 * in its workspace. An *orphan* is Serenity's, untracked, unclaimed, and still holding something:
 * a project, or a sub-workspace with projects or with more allocation than the deactivation floor.
 * An untracked sub-workspace that is empty and at the floor is *parked* (what deactivation leaves,
 * and what the reconciler leaves after reclaiming one): reported, never acted on. One that has not
 * settled (`not ready`) is a *zombie*: reported, never acted on (docs/runbooks/zombie-subworkspace.md).
 * Nothing else is ever touched: the parent itself, children the org's records and names do not
 * explain, projects whose names Serenity did not give.
 */

import { DEACTIVATION_FLOOR, isEmptyTargets, planRelease, type WorkspaceResources } from "./allocation.ts";
import { geoTargetIdFor } from "./geoTarget.ts";

/** What Serenity's records say about an org's upstream things. */
export interface UpstreamClaims {
  brands: {
    id: string;
    name: string;
    status: "pending" | "active" | "deleted";
    subWorkspaceId: string | null;
    provisioningStatus: "pending" | "ready" | "failed" | null;
    candidateWorkspaceId: string | null;
    /** The emptied shell a deleted brand left (docs/decisions/0041): Serenity's, never reclaimed. */
    retiredSubWorkspaceId: string | null;
  }[];
  markets: {
    id: string;
    brandId: string;
    workspaceId: string;
    projectId: string | null;
    status: "creating" | "ready";
    updatedAt: Date;
  }[];
  /** Brands with a job record still IN_PROGRESS. */
  brandsWithLiveJobs: string[];
  /** Sub-workspaces the allocation ledger shows Serenity transferring into. */
  ledgerWorkspaceIds: string[];
}

export interface ObservedWorkspace {
  id: string;
  title: string;
  /** Normalised status; see isReady. */
  ready: boolean;
  parentId: string | null;
}

export interface ObservedProject {
  id: string;
  name: string | undefined;
  publishStatus: string | undefined;
}

/** One direct child of the parent that is Serenity's, as the rules see it. */
export type SubWorkspaceState = "tracked" | "claimed" | "orphan" | "parked" | "zombie" | "unread";

export interface ClassifiedSubWorkspace {
  id: string;
  title: string;
  state: SubWorkspaceState;
  /** The brand it belongs to: its tracker, else the brand its title or records name. */
  brandId: string | null;
}

export interface ProjectOrphan {
  id: string;
  name: string;
  workspaceId: string;
  publishStatus: string | undefined;
  brandId: string | null;
}

/** `<brand name> <country> <language>`: the name Serenity gives a market's project. */
const MARKET_SUFFIX = /^[A-Za-z]{2} [A-Za-z]{2,3}(?:-[A-Za-z0-9]+)?$/;

/** The brand whose market-project name this is, or undefined (not a name Serenity gives). */
export function projectNameBrand(claims: UpstreamClaims, name: string | undefined): string | undefined {
  if (!name) return undefined;
  // Longest name first: "Acme Labs US en" belongs to "Acme Labs", not to "Acme".
  const candidates = [...claims.brands].sort((a, b) => b.name.length - a.name.length);
  for (const brand of candidates) {
    if (name.startsWith(`${brand.name} `) && MARKET_SUFFIX.test(name.slice(brand.name.length + 1)))
      return brand.id;
  }
  return undefined;
}

/** The market slice an orphan project would track again (see reattachableSlice). */
export interface MarketSlice {
  brandId: string;
  geoTargetId: number;
  languageCode: string;
  country: string;
  workspaceId: string;
}

const PUBLISHED = new Set(["live", "live_with_unpublished_updates"]);

/**
 * The slice an orphan project can be re-attached to, or undefined (ADR 0016 addendum): a
 * published project named `<brand name> <country> <language>` for the very brand it belongs to, in
 * the workspace that brand writes into (its sub-workspace, or the parent for a flat brand). What a
 * restore from an older backup leaves: the market's row is gone, its project and prompts are not.
 * Whether the slice is free is the market table's to say (its unique slice constraint).
 */
export function reattachableSlice(
  claims: UpstreamClaims,
  parentWorkspaceId: string,
  orphan: ProjectOrphan,
): MarketSlice | undefined {
  if (!PUBLISHED.has(orphan.publishStatus?.trim().toLowerCase() ?? "")) return undefined;
  const brand = claims.brands.find((candidate) => candidate.id === orphan.brandId);
  if (!brand || brand.status === "deleted") return undefined;
  if (projectNameBrand(claims, orphan.name) !== brand.id) return undefined;
  if ((brand.subWorkspaceId ?? parentWorkspaceId) !== orphan.workspaceId) return undefined;
  const [country, languageCode] = orphan.name.slice(brand.name.length + 1).split(" ");
  const geoTargetId = country ? geoTargetIdFor(country) : undefined;
  if (!country || !languageCode || geoTargetId === undefined) return undefined;
  return {
    brandId: brand.id,
    geoTargetId,
    languageCode,
    country: country.toUpperCase(),
    workspaceId: orphan.workspaceId,
  };
}

function brandClaimed(claims: UpstreamClaims, brandId: string): boolean {
  if (claims.brandsWithLiveJobs.includes(brandId)) return true;
  return claims.brands.some((brand) => brand.id === brandId && brand.provisioningStatus === "pending");
}

/**
 * The parent's direct children that are Serenity's, each with the brand it belongs to and whether
 * it is tracked or claimed; the rest (`undefined`) are not Serenity's and are never touched.
 */
export function subWorkspaceProvenance(
  claims: UpstreamClaims,
  parentWorkspaceId: string,
  workspace: ObservedWorkspace,
): { brandId: string | null; tracked: boolean; claimed: boolean } | undefined {
  if (workspace.parentId !== parentWorkspaceId || workspace.id === parentWorkspaceId) return undefined;
  const tracker = claims.brands.find(
    (brand) => brand.status !== "deleted" && brand.subWorkspaceId === workspace.id,
  );
  if (tracker) return { brandId: tracker.id, tracked: true, claimed: false };
  const candidateOf = claims.brands.filter((brand) => brand.candidateWorkspaceId === workspace.id);
  const titledAs = claims.brands.filter((brand) => brand.name === workspace.title);
  const named =
    claims.brands.some(
      (brand) => brand.subWorkspaceId === workspace.id || brand.retiredSubWorkspaceId === workspace.id,
    ) ||
    claims.markets.some((market) => market.workspaceId === workspace.id) ||
    claims.ledgerWorkspaceIds.includes(workspace.id);
  if (candidateOf.length === 0 && titledAs.length === 0 && !named) return undefined;
  const related = [...candidateOf, ...titledAs];
  const claimed =
    candidateOf.some((brand) => brand.provisioningStatus === "pending") ||
    related.some((brand) => brandClaimed(claims, brand.id)) ||
    claims.markets.some((market) => market.workspaceId === workspace.id && market.status === "creating");
  return { brandId: related[0]?.id ?? null, tracked: false, claimed };
}

/**
 * The state of an untracked, unclaimed Serenity sub-workspace from what was read of it: `unread`
 * when its projects or resources could not be read this pass; a deleted brand's retired shell is
 * `parked` whatever it still holds (the delete released what it could; nothing reclaims it).
 */
export function untrackedState(
  workspace: ObservedWorkspace,
  projects: ObservedProject[] | undefined,
  resources: WorkspaceResources | undefined,
  options: { retired?: boolean } = {},
): Exclude<SubWorkspaceState, "tracked" | "claimed"> {
  if (!workspace.ready) return "zombie";
  if (!projects || !resources) return "unread";
  // The shell a deleted brand left (ADR 0041): kept as live practice requires, never acted on.
  if (options.retired) return "parked";
  if (projects.length > 0) return "orphan";
  return isEmptyTargets(planRelease(resources, DEACTIVATION_FLOOR).targets) ? "parked" : "orphan";
}

/**
 * The orphan projects of one workspace that is not itself an orphan (a tracked brand sub-workspace,
 * or the parent for flat brands): Serenity-named, tracked by no market row, and not claimed by a
 * reservation in that workspace or a live job of the brand it belongs to.
 */
export function projectOrphans(
  claims: UpstreamClaims,
  workspaceId: string,
  projects: ObservedProject[],
  owner: string | null,
): ProjectOrphan[] {
  const trackedIds = new Set(claims.markets.map((market) => market.projectId).filter(Boolean));
  const reserved = claims.markets.some(
    (market) => market.workspaceId === workspaceId && market.status === "creating",
  );
  const orphans: ProjectOrphan[] = [];
  for (const project of projects) {
    if (trackedIds.has(project.id)) continue;
    const namedFor = projectNameBrand(claims, project.name);
    if (!namedFor) continue;
    if (reserved) continue;
    if (brandClaimed(claims, namedFor) || (owner !== null && brandClaimed(claims, owner))) continue;
    orphans.push({
      id: project.id,
      name: project.name!,
      workspaceId,
      publishStatus: project.publishStatus,
      brandId: owner ?? namedFor,
    });
  }
  return orphans;
}

/**
 * Reservations a failed rollback left (ADR 0015): `creating` with the project id the create
 * recorded, untouched for `graceMs`, of a brand no live job works for. The reconciler retries
 * their rollback: delete the project, then drop the row.
 */
export function staleRollbacks(
  claims: UpstreamClaims,
  now: Date,
  graceMs: number,
): (UpstreamClaims["markets"][number] & { projectId: string })[] {
  return claims.markets.filter(
    (market): market is UpstreamClaims["markets"][number] & { projectId: string } =>
      market.status === "creating" &&
      market.projectId !== null &&
      now.getTime() - market.updatedAt.getTime() >= graceMs &&
      !claims.brandsWithLiveJobs.includes(market.brandId),
  );
}

/**
 * Reservations abandoned before a project was recorded (a process that died between reserving a
 * slice and recording the project it made, or before making one): `creating` with no project id,
 * untouched for `graceMs`, of a brand no live job works for. Such a row tracks nothing, but as a
 * reservation it claims every untracked project of its workspace — so a project its create did
 * make would never become an orphan. The reconciler drops the row under the brand's lease (no
 * structural operation of the brand in flight); a project left behind is then an orphan like any.
 */
export function abandonedReservations(
  claims: UpstreamClaims,
  now: Date,
  graceMs: number,
): UpstreamClaims["markets"] {
  return claims.markets.filter(
    (market) =>
      market.status === "creating" &&
      market.projectId === null &&
      now.getTime() - market.updatedAt.getTime() >= graceMs &&
      !claims.brandsWithLiveJobs.includes(market.brandId),
  );
}

/** Whether a workspace is the shell a deleted brand left (brands.retired_sub_workspace_id). */
export function isRetiredShell(claims: UpstreamClaims, workspaceId: string): boolean {
  return claims.brands.some(
    (brand) => brand.status === "deleted" && brand.retiredSubWorkspaceId === workspaceId,
  );
}
