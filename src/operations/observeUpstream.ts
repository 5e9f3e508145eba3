import { observeResources } from "../allocation/resourcesRecord.ts";
import type { AllocationUpstream } from "../allocation/upstreamPort.ts";
import type { DbExecutor } from "../db/database.ts";
import { readUpstreamClaims } from "../db/upstreamReconcile/readUpstreamClaims.ts";
import type { WorkspaceResources } from "../domain/allocation.ts";
import type { Clock } from "../domain/clock.ts";
import {
  isRetiredShell,
  type ObservedProject,
  type ObservedWorkspace,
  type ProjectOrphan,
  projectOrphans,
  subWorkspaceProvenance,
  type SubWorkspaceState,
  untrackedState,
  type UpstreamClaims,
} from "../domain/upstreamOrphans.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { isReadyStatus } from "../gateway/workspaceStatus.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * The reconciler's "observe" half (spec/provisioning.md §9): one read of the parent's family,
 * one project listing of the parent and of each sub-workspace that is Serenity's, one resources
 * read of each untracked one, then the pure rules of src/domain/upstreamOrphans.ts. Read-only:
 * `serenity audit` shows it as it is, the reconciler acts on it.
 */

export interface ObserveDeps {
  db: DbExecutor;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  gateway: Pick<GatewayClient, "users" | "projects">;
  upstream: Pick<AllocationUpstream, "readResources">;
}

export interface ObservedSubWorkspace {
  id: string;
  title: string;
  state: SubWorkspaceState;
  brandId: string | null;
  /** How many projects it holds (undefined when not listed: tracked, claimed or unread). */
  projects: number | undefined;
  /** Its allocation and usage (read for untracked ones only). */
  resources: WorkspaceResources | undefined;
}

export interface UpstreamObservation {
  orgId: string;
  parentWorkspaceId: string;
  /** Every direct child of the parent that is Serenity's (the rest are never shown or touched). */
  subWorkspaces: ObservedSubWorkspace[];
  /** Orphan projects in tracked sub-workspaces and in the parent (not those of orphan sub-workspaces). */
  projects: ProjectOrphan[];
  /** Workspaces whose project listing failed this pass (their orphans, if any, wait for the next). */
  unreadWorkspaces: string[];
  claims: UpstreamClaims;
}

const PROJECT_PAGE_SIZE = 100;

/** Every AI project of a workspace, page after page. */
export async function listAllProjects(
  gateway: Pick<GatewayClient, "projects">,
  bearer: string,
  workspaceId: string,
): Promise<ObservedProject[]> {
  const projects: ObservedProject[] = [];
  for (let page = 1; ; page++) {
    const result = await gateway.projects.listProjects(bearer, workspaceId, {
      page,
      limit: PROJECT_PAGE_SIZE,
    });
    projects.push(
      ...result.items.map((project) => ({
        id: project.id,
        name: project.name,
        publishStatus: project.publishStatus,
      })),
    );
    if (result.items.length < PROJECT_PAGE_SIZE || projects.length >= result.total) return projects;
  }
}

export async function observeUpstream(
  deps: ObserveDeps,
  org: { id: string; parentWorkspaceId: string },
  bearer: string,
): Promise<UpstreamObservation> {
  const parent = org.parentWorkspaceId;
  const family = await deps.gateway.users.getFamily(bearer, parent);
  const claims = await readUpstreamClaims(deps.db, org.id);
  const unreadWorkspaces: string[] = [];
  const subWorkspaces: ObservedSubWorkspace[] = [];
  const projects: ProjectOrphan[] = [];

  const list = async (workspaceId: string): Promise<ObservedProject[] | undefined> => {
    try {
      return await listAllProjects(deps.gateway, bearer, workspaceId);
    } catch (error) {
      deps.logger.warn(
        { err: error, orgId: org.id, workspaceId },
        "upstream reconciler: project listing failed",
      );
      unreadWorkspaces.push(workspaceId);
      return undefined;
    }
  };

  for (const child of family) {
    const observed: ObservedWorkspace = {
      id: child.id,
      title: child.title,
      ready: isReadyStatus(child.status),
      parentId: child.parentId,
    };
    const provenance = subWorkspaceProvenance(claims, parent, observed);
    if (!provenance) continue;
    const base = { id: child.id, title: child.title, brandId: provenance.brandId };
    if (provenance.tracked) {
      subWorkspaces.push({ ...base, state: "tracked", projects: undefined, resources: undefined });
      const listed = await list(child.id);
      if (listed) projects.push(...projectOrphans(claims, child.id, listed, provenance.brandId));
      continue;
    }
    if (provenance.claimed) {
      subWorkspaces.push({ ...base, state: "claimed", projects: undefined, resources: undefined });
      continue;
    }
    let listed: ObservedProject[] | undefined;
    let resources: WorkspaceResources | undefined;
    if (observed.ready) {
      listed = await list(child.id);
      try {
        // Written to the resources record too: the pool view lists it as unattached (ADR 0020).
        resources = await observeResources(deps, { orgId: org.id, bearer }, child.id, child.title);
      } catch (error) {
        deps.logger.warn(
          { err: error, orgId: org.id, workspaceId: child.id },
          "upstream reconciler: resources read failed",
        );
      }
    }
    subWorkspaces.push({
      ...base,
      state: untrackedState(observed, listed, resources, { retired: isRetiredShell(claims, child.id) }),
      projects: listed?.length,
      resources,
    });
  }

  const inParent = await list(parent);
  if (inParent) projects.push(...projectOrphans(claims, parent, inParent, null));
  return { orgId: org.id, parentWorkspaceId: parent, subWorkspaces, projects, unreadWorkspaces, claims };
}
