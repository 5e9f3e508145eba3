import type { CatalogueModel } from "./catalogue/aiModels.ts";
import { languageById } from "./catalogue/languages.ts";
import type {
  PerDimension,
  SimAssignment,
  SimProject,
  SimPrompt,
  SimTag,
  SimWorkspace,
  UnitCounts,
} from "./store/types.ts";

/** Response shapes of both gateways (snake_case, as upstream). */

export function workspaceSummary(workspace: SimWorkspace, status: string) {
  return { id: workspace.id, title: workspace.title, status, parent_id: workspace.parentId };
}

/**
 * `GET /v1/workspaces/{id}` and a transfer's answer (the published `handlers.workspaceResponse`).
 * The `ai` product's metering switch is where the document puts it, `product_tiers[].product`
 * (`{id: "ai", limits_enabled}`); `metered` follows the workspace's root (spec/gateway.md §3).
 */
export function workspaceView(workspace: SimWorkspace, status: string, metered: boolean) {
  return {
    ...workspaceSummary(workspace, status),
    product_tiers: [{ product: { id: "ai", name: "AI", limits_enabled: metered } }],
    created_at: new Date(workspace.createdAt).toISOString(),
  };
}

export function resourcesDocument(resources: PerDimension<UnitCounts>) {
  return {
    product_resources: {
      ai: { resources: { projects: { ...resources.projects }, prompts: { ...resources.prompts } } },
    },
  };
}

export function projectView(project: SimProject, publishStatus: string) {
  const language = languageById(project.languageId);
  return {
    id: project.id,
    workspace_id: project.workspaceId,
    name: project.name,
    type: "ai",
    brand_name_display: project.brandNameDisplay,
    brand_names: [...project.brandNames],
    domain: project.domain,
    primary_url: project.primaryUrl,
    country_code: project.countryCode,
    location_id: project.locationId,
    location_name: project.locationName,
    language_id: project.languageId,
    publish_status: publishStatus,
    created_at: new Date(project.createdAt).toISOString(),
    updated_at: new Date(project.updatedAt).toISOString(),
    settings: {
      ai: {
        // Live shows the ISO code here, not the English name.
        language: { id: project.languageId, name: language?.code ?? "" },
        location: { id: project.locationId, name: project.locationName },
        country_code: project.countryCode,
      },
    },
  };
}

export function modelView(model: CatalogueModel) {
  return { id: model.id, key: model.key, name: model.name, icon: model.icon };
}

export function assignmentView(assignment: SimAssignment, model: CatalogueModel, promptsCount: number) {
  return { id: assignment.id, model: modelView(model), prompts_count: promptsCount };
}

export function tagView(tag: SimTag, childrenCount: number, promptsCount: number) {
  return {
    id: tag.id,
    name: tag.name,
    ...(tag.parentId ? { parent_id: tag.parentId } : {}),
    children_count: childrenCount,
    prompts_count: promptsCount,
  };
}

export function promptView(prompt: SimPrompt, project: SimProject, includeMetadata: boolean) {
  const tags = prompt.tagIds
    .map((id) => project.tags.get(id))
    .filter((tag): tag is SimTag => tag !== undefined)
    .map((tag) => ({ id: tag.id, name: tag.name }));
  return {
    id: prompt.id,
    name: prompt.name,
    is_new: !prompt.live,
    tags,
    ...(includeMetadata ? { metadata: { ...prompt.metadata } } : {}),
  };
}
