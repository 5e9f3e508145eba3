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

/**
 * Response shapes of both gateways (snake_case, as upstream), held to Semrush's published documents
 * and the live facts by test/integration/gateway/upstreamConformance.test.ts: no field either
 * document does not declare, unless a live fact names it.
 */

const countryNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

export function workspaceSummary(workspace: SimWorkspace, status: string) {
  // The documents type `parent_id` as a string and live's value for a root is not pinned; a
  // production user's live-calibrated mock answers "" (spec/fixtures/semrush/README.md).
  return { id: workspace.id, title: workspace.title, status, parent_id: workspace.parentId ?? "" };
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

/**
 * The project read view as live sends it: identity, type, domain and publish state at the top level;
 * brand, primary URL, country, location and language nested under `settings.ai`, the language's
 * `name` its ISO code (the ProjectResponse schema and the live facts). No creation time: live has
 * none.
 */
export function projectView(project: SimProject, publishStatus: string) {
  const language = languageById(project.languageId);
  return {
    id: project.id,
    name: project.name,
    type: "ai",
    domain: project.domain,
    publish_status: publishStatus,
    updated_at: new Date(project.updatedAt).toISOString(),
    settings: {
      ai: {
        brand_name_display: project.brandNameDisplay,
        brand_names: [...project.brandNames],
        ...(project.primaryUrl === null ? {} : { primary_url: project.primaryUrl }),
        country: { code: project.countryCode, name: countryName(project.countryCode) },
        location: { id: project.locationId, name: project.locationName },
        language: { id: project.languageId, name: language?.code ?? "" },
        benchmarks_count: project.benchmarks.size,
      },
      ci: {
        competitors: project.ciCompetitors.map((competitor) => ({
          id: competitor.id,
          domain: competitor.domain,
          color: competitor.color,
          project_id: project.id,
        })),
      },
    },
  };
}

function countryName(code: string): string {
  try {
    return countryNames.of(code.toUpperCase()) ?? "";
  } catch {
    return "";
  }
}

export function modelView(model: CatalogueModel) {
  return { id: model.id, key: model.key, name: model.name, icon: model.icon };
}

export function assignmentView(assignment: SimAssignment, model: CatalogueModel, promptsCount: number) {
  return { id: assignment.id, model: modelView(model), prompts_count: promptsCount };
}

/** A tag in the tree read (`GET …/aio/tags`) and on prompts: `AIOTag`. */
export function tagView(tag: SimTag, childrenCount: number, promptsCount: number) {
  return {
    id: tag.id,
    name: tag.name,
    ...(tag.parentId ? { parent_id: tag.parentId } : {}),
    children_count: childrenCount,
    prompts_count: promptsCount,
  };
}

/** A tag as tag create answers it: `TreeNodeResponse`, whose count is `keyword_count` (live). */
export function createdTagView(tag: SimTag) {
  return {
    id: tag.id,
    name: tag.name,
    ...(tag.parentId ? { parent_id: tag.parentId } : {}),
    children_count: 0,
    keyword_count: 0,
  };
}

/** A prompt of the by-tags list; the published view (no `draft`) shows the text as last published. */
export function promptView(
  prompt: SimPrompt,
  project: SimProject,
  options: { includeMetadata: boolean; draft: boolean },
) {
  const tags = prompt.tagIds
    .map((id) => project.tags.get(id))
    .filter((tag): tag is SimTag => tag !== undefined)
    .map((tag) => ({ id: tag.id, name: tag.name }));
  return {
    id: prompt.id,
    name: options.draft ? prompt.name : (prompt.liveName ?? prompt.name),
    is_new: !prompt.live,
    tags,
    ...(options.includeMetadata ? { metadata: { ...prompt.metadata } } : {}),
  };
}
