import { type ParsedSnapshot, type SnapshotProject, snapshotSchema } from "./snapshot.ts";
import type { PerDimension, SimProject, SimWorkspace, UnitCounts } from "./types.ts";

export function zeroPerDimension(): PerDimension<number> {
  return { projects: 0, prompts: 0 };
}

export function newWorkspace(fields: {
  id: string;
  title: string;
  parentId: string | null;
  status?: string;
  createdAt: number;
  limitsEnabled?: boolean;
  resources?: PerDimension<UnitCounts>;
}): SimWorkspace {
  return {
    id: fields.id,
    title: fields.title,
    parentId: fields.parentId,
    status: fields.status ?? "created",
    createdAt: fields.createdAt,
    notReadyReads: 0,
    settleUntil: 0,
    notReadyTransfers: 0,
    limitsEnabled: fields.limitsEnabled ?? false,
    resources: fields.resources ?? {
      projects: { used: 0, drafted: 0, total: 0 },
      prompts: { used: 0, drafted: 0, total: 0 },
    },
    usedLag: { pending: zeroPerDimension(), reads: 0, until: 0, endsBy: 0 },
    enforcement: { projects: null, prompts: null },
  };
}

function projectFromSnapshot(entry: SnapshotProject, now: number): SimProject {
  const prompts = new Map(
    entry.prompts.map((prompt) => [
      prompt.id,
      {
        id: prompt.id,
        name: prompt.name,
        live: prompt.live,
        ...(prompt.live ? { liveName: prompt.live_name ?? prompt.name } : {}),
        tagIds: prompt.tag_ids,
        metadata: prompt.metadata,
      },
    ]),
  );
  return {
    id: entry.id,
    workspaceId: entry.workspace_id,
    name: entry.name,
    brandNameDisplay: entry.brand_name_display,
    brandNames: entry.brand_names,
    domain: entry.domain,
    primaryUrl: entry.primary_url,
    countryCode: entry.country_code,
    locationId: entry.location_id,
    locationName: entry.location_name,
    languageId: entry.language_id,
    publishState: entry.publish_state,
    dirty: false,
    publishingReads: 0,
    createdAt: now,
    updatedAt: now,
    staged: { ...entry.staged },
    published: { ...entry.published },
    models: entry.models.map((model) => ({ id: model.id, modelId: model.model_id })),
    prompts,
    promptIdByText: new Map([...prompts.values()].map((prompt) => [prompt.name, prompt.id])),
    tags: new Map(
      entry.tags.map((tag) => [
        tag.id,
        { id: tag.id, name: tag.name, parentId: tag.parent_id, live: tag.live },
      ]),
    ),
    benchmarks: new Map(
      entry.benchmarks.map((benchmark) => [
        benchmark.id,
        {
          id: benchmark.id,
          brandName: benchmark.brand_name,
          brandAliases: benchmark.brand_aliases,
          rejectedAliases: rejectedAliasesOf(benchmark.brand_aliases),
          domain: benchmark.domain,
          primaryUrl: benchmark.primary_url,
          color: benchmark.color,
          favorite: benchmark.favorite,
          mainBrand: benchmark.main_brand,
          createdAt: now,
          brandUrls: new Map(
            benchmark.brand_urls.map((entry) => [
              entry.id,
              { id: entry.id, url: entry.url, type: entry.type, createdAt: now, updatedAt: now },
            ]),
          ),
        },
      ]),
    ),
    ciCompetitors: entry.ci_competitors.map((competitor) => ({ ...competitor })),
    hiddenFromListReads: 0,
  };
}

/**
 * The aliases the simulator answers as `rejected_brand_aliases`: shorter than 3 characters (live's
 * rule is not published; this one is the simulator's, so a rejection can be provoked in tests).
 */
export function rejectedAliasesOf(aliases: readonly string[]): string[] {
  return aliases.filter((alias) => [...alias.trim()].length < 3);
}

/**
 * One coupled store for both gateways. Route handlers read and change it synchronously (no await
 * between a check and its write), so every upstream write is atomic like a single upstream commit.
 */
export class SimulatorStore {
  readonly workspaces = new Map<string, SimWorkspace>();
  /** Deleted workspace id → status reads that still answer `deleting` before it is gone. */
  readonly deleting = new Map<string, number>();
  readonly projects = new Map<string, SimProject>();
  /** Title → status rule applied to workspaces created later with exactly that title. */
  readonly titleRules = new Map<string, { status?: string; notReadyReads?: number }>();

  clear(): void {
    this.workspaces.clear();
    this.deleting.clear();
    this.projects.clear();
    this.titleRules.clear();
  }

  /** Replaces everything with a snapshot (validated; throws a ZodError on a malformed one). */
  load(input: unknown, now: number): void {
    const snapshot: ParsedSnapshot = snapshotSchema.parse(input);
    this.clear();
    for (const entry of snapshot.workspaces) {
      this.workspaces.set(
        entry.id,
        newWorkspace({
          id: entry.id,
          title: entry.title,
          parentId: entry.parent_id,
          status: entry.settles_to ?? entry.status,
          createdAt: now,
          limitsEnabled: entry.limits_enabled.ai,
          resources: { projects: { ...entry.resources.projects }, prompts: { ...entry.resources.prompts } },
        }),
      );
    }
    for (const entry of snapshot.projects) this.projects.set(entry.id, projectFromSnapshot(entry, now));
  }

  workspace(id: string): SimWorkspace | undefined {
    return this.workspaces.get(id);
  }

  rootOf(workspace: SimWorkspace): SimWorkspace {
    let current = workspace;
    const seen = new Set<string>();
    while (current.parentId && !seen.has(current.id)) {
      seen.add(current.id);
      const parent = this.workspaces.get(current.parentId);
      if (!parent) break;
      current = parent;
    }
    return current;
  }

  /** Metering follows the root's `limits_enabled.ai` (spec/gateway.md §3). */
  isMetered(workspace: SimWorkspace): boolean {
    return this.rootOf(workspace).limitsEnabled;
  }

  /** The workspace and all its descendants, breadth first, the workspace itself first. */
  family(id: string): SimWorkspace[] {
    const self = this.workspaces.get(id);
    if (!self) return [];
    const result = [self];
    for (let index = 0; index < result.length; index += 1) {
      const parentId = result[index]!.id;
      for (const workspace of this.workspaces.values()) {
        if (workspace.parentId === parentId) result.push(workspace);
      }
    }
    return result;
  }

  /** True when `id` is `ancestorId` or one of its descendants. */
  isWithin(id: string, ancestorId: string): boolean {
    let current = this.workspaces.get(id);
    const seen = new Set<string>();
    while (current && !seen.has(current.id)) {
      if (current.id === ancestorId) return true;
      seen.add(current.id);
      current = current.parentId ? this.workspaces.get(current.parentId) : undefined;
    }
    return false;
  }

  projectsOf(workspaceId: string): SimProject[] {
    return [...this.projects.values()].filter((project) => project.workspaceId === workspaceId);
  }

  project(workspaceId: string, projectId: string): SimProject | undefined {
    const project = this.projects.get(projectId);
    return project && project.workspaceId === workspaceId ? project : undefined;
  }

  toSnapshot(): ParsedSnapshot {
    return {
      workspaces: [...this.workspaces.values()].map((workspace) => ({
        id: workspace.id,
        title: workspace.title,
        status: workspace.status,
        parent_id: workspace.parentId,
        limits_enabled: { ai: this.isMetered(workspace) },
        resources: {
          projects: { ...workspace.resources.projects },
          prompts: { ...workspace.resources.prompts },
        },
      })),
      projects: [...this.projects.values()].map((project) => ({
        id: project.id,
        workspace_id: project.workspaceId,
        name: project.name,
        brand_name_display: project.brandNameDisplay,
        brand_names: [...project.brandNames],
        domain: project.domain,
        primary_url: project.primaryUrl,
        country_code: project.countryCode,
        location_id: project.locationId,
        location_name: project.locationName,
        language_id: project.languageId,
        publish_state: project.publishState,
        staged: { ...project.staged },
        published: { ...project.published },
        models: project.models.map((model) => ({ id: model.id, model_id: model.modelId })),
        prompts: [...project.prompts.values()].map((prompt) => ({
          id: prompt.id,
          name: prompt.name,
          live: prompt.live,
          ...(prompt.liveName === undefined ? {} : { live_name: prompt.liveName }),
          tag_ids: [...prompt.tagIds],
          metadata: { ...prompt.metadata },
        })),
        tags: [...project.tags.values()].map((tag) => ({
          id: tag.id,
          name: tag.name,
          parent_id: tag.parentId,
          live: tag.live,
        })),
        benchmarks: [...project.benchmarks.values()].map((benchmark) => ({
          id: benchmark.id,
          brand_name: benchmark.brandName,
          brand_aliases: [...benchmark.brandAliases],
          domain: benchmark.domain,
          primary_url: benchmark.primaryUrl,
          color: benchmark.color,
          favorite: benchmark.favorite,
          main_brand: benchmark.mainBrand,
          brand_urls: [...benchmark.brandUrls.values()].map((entry) => ({
            id: entry.id,
            url: entry.url,
            type: entry.type,
          })),
        })),
        ci_competitors: project.ciCompetitors.map((competitor) => ({ ...competitor })),
      })),
    };
  }
}
