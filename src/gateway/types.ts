/**
 * Domain-side shapes of the gateway calls (camelCase). The adapters map snake_case wire fields to
 * these; ids are opaque strings whatever JSON type the upstream uses (a numeric id becomes "123").
 */

export type GatewayName = "um" | "pe";

// ---- User Manager ----------------------------------------------------------------------------

export interface Workspace {
  id: string;
  title: string;
  /** Normalised (trimmed, lower-cased): `not ready`, `created`, `error`… see workspaceStatus.ts. */
  status: string;
  /** `null` for a root (parent) workspace. */
  parentId: string | null;
}

export interface WorkspaceDetails extends Workspace {
  /**
   * The `ai` product's metering switch: `limits_enabled` of the `product_tiers[].product` whose id
   * is `ai` (the published `handlers.workspaceResponse`). A parent with it `false` meters nothing
   * (spec/allocation.md §13). `null` when the answer carries no `ai` product with a boolean flag.
   */
  aiLimitsEnabled: boolean | null;
}

/** One dimension of a workspace's AI resources. */
export interface ResourceUsage {
  /** Published consumption. */
  used: number;
  /** Staged (draft) consumption. */
  drafted: number;
  /** The allocation limit. */
  total: number;
}

export interface AiResources {
  projects: ResourceUsage;
  prompts: ResourceUsage;
}

/** An absolute allocation per dimension; an omitted dimension is left untouched upstream. */
export interface AiAllocation {
  projects?: number;
  prompts?: number;
}

export interface CreateSubWorkspaceRequest {
  title: string;
  /** Optional initial allocation, taken from the parent's free units (422 when it cannot). */
  resources?: AiAllocation;
}

// ---- Project Engine --------------------------------------------------------------------------

export interface Page<T> {
  items: T[];
  page: number;
  total: number;
}

export interface PageRequest {
  page?: number;
  limit?: number;
}

export interface Language {
  id: string;
  /** English name, e.g. "French". */
  name: string;
}

export interface AiModel {
  /** The catalogue id (what `addProjectAiModel` takes). */
  id: string;
  /** Stable key such as `search-gpt` or `gemini-2.5-flash`. */
  key: string;
  name: string;
  icon: string | undefined;
}

/**
 * A project as its read view shows it: identity and publish state at the top level, the brand, URL,
 * country, location and language from `settings.ai` (where live puts them).
 */
export interface Project {
  id: string;
  name: string | undefined;
  /** `draft | publishing | initial_publish_failed | live | live_with_unpublished_updates` (see projectStatus.ts). */
  publishStatus: string | undefined;
  domain: string | undefined;
  /** `settings.ai.country.code` (lower case, as sent on create). */
  countryCode: string | undefined;
  locationId: number | undefined;
  locationName: string | undefined;
  /** `settings.ai.language.id`. */
  languageId: string | undefined;
  /** The ISO language code live shows under `settings.ai.language.name`. */
  languageCode: string | undefined;
  primaryUrl: string | undefined;
  brandNameDisplay: string | undefined;
  brandNames: string[] | undefined;
  /** `settings.ci.competitors[].domain`: the project's CI competitors (undefined when not sent). */
  ciCompetitorDomains: string[] | undefined;
}

export interface CreateProjectRequest {
  name: string;
  brandNameDisplay: string;
  brandNames: string[];
  domain: string;
  /** ISO-3166 alpha-2; sent lower-cased. */
  countryCode: string;
  /** The geo target id (2000 + ISO numeric country code). */
  locationId: number;
  locationName: string;
  /** A language id from `listLanguages` (a UUID string live). */
  languageId: string;
}

export interface PatchProjectRequest {
  primaryUrl?: string;
  brandNameDisplay?: string;
  brandNames?: string[];
}

export interface BrandTopic {
  /** The topic's text; "" when the upstream gives none (such entries are dropped when bounding). */
  topic: string;
  /** Search volume; 0 when the upstream gives none. */
  volume: number;
  prompts: string[];
}

export interface AiModelAssignment {
  /** The assignment id (what `deleteProjectAiModels` takes), not the catalogue id. */
  assignmentId: string;
  model: AiModel;
  promptsCount: number;
}

export interface AddedAiModel {
  assignmentId: string;
  /** Present when the upstream echoes the model. */
  model: AiModel | undefined;
}

export interface PromptTag {
  id: string;
  name: string | undefined;
  parentId: string | null;
}

export interface PromptMetadata {
  createdAt: string | undefined;
  createdBy: string | undefined;
  updatedAt: string | undefined;
  updatedBy: string | undefined;
}

export interface Prompt {
  id: string;
  /** The prompt's text (upstream `name`): its identity within a project. */
  text: string;
  /** True while the prompt exists only in the draft layer (or, on create, was newly created). */
  isNew: boolean;
  tags: PromptTag[];
  metadata: PromptMetadata | undefined;
}

/** The by-tags list's sort fields (`sort_field`; the document types it as a free string). */
export type PromptSortField = "name" | "created_at" | "updated_at";

export interface ListPromptsRequest extends PageRequest {
  /** Filter by tags; empty or omitted = all prompts. */
  tagIds?: string[];
  /** Include the draft layer (default: published only, like live). */
  draft?: boolean;
  /** Text contains, case-insensitive (`search`). */
  search?: string;
  sortField?: PromptSortField;
  sortDir?: "asc" | "desc";
}

/**
 * The v3 in-place edit (`PATCH …/aio/prompts/{id}`, an RFC 7396 merge patch): the text and/or the
 * metadata's author and time fields. The published operation takes no tags (a retag is
 * `setPromptTags`).
 */
export interface PatchPromptRequest {
  text?: string;
  metadata?: Partial<Record<"createdAt" | "createdBy" | "updatedAt" | "updatedBy", string | null>>;
}

/** The v2 rename's answer: `updated` is false for a draft-only prompt, a restore, or no change. */
export interface RenamedPrompt {
  id: string;
  text: string;
  updated: boolean;
}

export interface PatchTagRequest {
  name: string;
  /** Omitted = keep the parent; null = make it a root. */
  parentId?: string | null;
}

export interface DeleteTagsRequest {
  ids: string[];
  /** Delete each tag's descendants too (without it, a tag with children is refused upstream). */
  cascade?: boolean;
}

export interface CreatePromptsRequest {
  texts: string[];
  /** Who the prompts are attributed to in their metadata (a user id or `serenity`). */
  createdBy: string;
  tagIds?: string[];
}

export interface CreatePromptsResult {
  /** One entry per text; `isNew: false` for a text already in the project (consumed nothing). */
  items: Prompt[];
  existingCount: number;
}

export interface Tag {
  id: string;
  name: string;
  parentId: string | null;
  childrenCount: number;
  promptsCount: number;
}

export interface ListTagsRequest {
  /** Children of this tag; omitted = root tags. */
  parentId?: string;
  search?: string;
}

export interface CreateTagsRequest {
  names: string[];
  parentId?: string;
}

export interface PromptTagAssignment {
  promptId: string;
  tagIds: string[];
  /** Replace the prompt's tags (true) or add to them (false). */
  replace: boolean;
}
