import type { ZodType } from "zod";

import type { Clock } from "../domain/clock.ts";
import type { UpstreamScope } from "../domain/upstreamBudget.ts";
import type { QueryValue } from "./routeTemplate.ts";
import type { GatewayCallOptions, GatewayTransport, HttpMethod } from "./transport.ts";
import type {
  AddedAiModel,
  AiModel,
  AiModelAssignment,
  BrandTopic,
  CreateProjectRequest,
  CreatePromptsRequest,
  CreatePromptsResult,
  CreateTagsRequest,
  DeleteTagsRequest,
  Language,
  ListPromptsRequest,
  ListTagsRequest,
  Page,
  PageRequest,
  PatchProjectRequest,
  PatchPromptRequest,
  PatchTagRequest,
  Project,
  Prompt,
  PromptTagAssignment,
  RenamedPrompt,
  Tag,
} from "./types.ts";
import { wirePage } from "./wire/common.ts";
import {
  addedAiModelWire,
  aiModelAssignmentsWire,
  aiModelWire,
  brandTopicsWire,
  createdTagsWire,
  createPromptsWire,
  initStatusWire,
  languageWire,
  projectWire,
  promptWire,
  renamedPromptWire,
  tagListWire,
  treeNodeWire,
} from "./wire/projectEngineWire.ts";

/**
 * The Project Engine adapter (`/enterprise/projects/api`): catalogues, projects (markets),
 * prompts, tags and a project's AI models. Every call takes the caller's bearer first; methods
 * with a trailing `options` accept a cancellation signal (see `GatewayRequest.signal`).
 */
export interface ProjectEngineClient {
  /** `GET /v1/languages`. */
  listLanguages(bearer: string): Promise<Page<Language>>;
  /** `GET /v1/ai_models?page&limit`: the global model catalogue. */
  listAiModels(bearer: string, request?: PageRequest): Promise<Page<AiModel>>;
  /** `GET /v1/workspaces/{ws}/projects?type=ai` (eventually consistent live). */
  listProjects(
    bearer: string,
    workspaceId: string,
    request?: PageRequest,
    options?: GatewayCallOptions,
  ): Promise<Page<Project>>;
  /** `POST /v1/workspaces/{ws}/projects`: creates a draft AI project (metered). */
  createProject(bearer: string, workspaceId: string, request: CreateProjectRequest): Promise<Project>;
  /** `GET …/projects/{pid}?draft=true&type=ai`: the draft view, incl. `publishStatus`. */
  getProject(bearer: string, workspaceId: string, projectId: string): Promise<Project>;
  /** `PATCH …/projects/{pid}` (set `primaryUrl` before publishing). */
  patchProject(
    bearer: string,
    workspaceId: string,
    projectId: string,
    patch: PatchProjectRequest,
  ): Promise<Project>;
  /** `DELETE …/projects/{pid}`; a `gone` error means it was already deleted. */
  deleteProject(
    bearer: string,
    workspaceId: string,
    projectId: string,
    options?: GatewayCallOptions,
  ): Promise<void>;
  /** `POST …/projects/{pid}/publish` (202; completes in the background, metered). */
  publishProject(bearer: string, workspaceId: string, projectId: string): Promise<void>;
  /** `GET /v1/workspaces/{ws}/brand-topics?domain&country`: the topic catalogue. */
  getBrandTopics(
    bearer: string,
    workspaceId: string,
    request: { domain: string; country: string },
  ): Promise<BrandTopic[]>;
  /** `GET /v1/…/{pid}/ai_models`: the project's model assignments. */
  listProjectAiModels(bearer: string, workspaceId: string, projectId: string): Promise<AiModelAssignment[]>;
  /** `POST /v2/…/{pid}/ai_models`: adds one catalogue model (metered). */
  addProjectAiModel(
    bearer: string,
    workspaceId: string,
    projectId: string,
    modelId: string,
  ): Promise<AddedAiModel>;
  /** `DELETE /v1/…/{pid}/ai_models` by assignment ids. */
  deleteProjectAiModels(
    bearer: string,
    workspaceId: string,
    projectId: string,
    assignmentIds: string[],
  ): Promise<void>;
  /** `POST /v2/…/{pid}/aio/prompts/by_tags?include_metadata=true[&draft=true]` (limit ≤ 200). */
  listPrompts(
    bearer: string,
    workspaceId: string,
    projectId: string,
    request?: ListPromptsRequest,
  ): Promise<Page<Prompt>>;
  /** `POST /v3/…/{pid}/aio/prompts`: creates prompts (metered, all or nothing; dedupes by text). */
  createPrompts(
    bearer: string,
    workspaceId: string,
    projectId: string,
    request: CreatePromptsRequest,
  ): Promise<CreatePromptsResult>;
  /** `DELETE /v2/…/{pid}/aio/prompts`. */
  deletePrompts(bearer: string, workspaceId: string, projectId: string, promptIds: string[]): Promise<void>;
  /** `GET /v2/…/{pid}/aio/tags?parent_id&search&draft=true`: one level of the tag tree. */
  listTags(bearer: string, workspaceId: string, projectId: string, request?: ListTagsRequest): Promise<Tag[]>;
  /** `POST /v2/…/{pid}/aio/tags` (a duplicate (parent, name) is a 500 upstream: resolve first). */
  createTags(
    bearer: string,
    workspaceId: string,
    projectId: string,
    request: CreateTagsRequest,
  ): Promise<Tag[]>;
  /** `PUT /v2/…/{pid}/aio/prompts/tags` (unknown prompt ids are skipped upstream). */
  setPromptTags(
    bearer: string,
    workspaceId: string,
    projectId: string,
    assignments: PromptTagAssignment[],
  ): Promise<void>;
  /**
   * `PATCH /v3/…/{pid}/aio/prompts/{id}` (204): the text and/or metadata in place, the id kept; a
   * text already in the project is a 409 (`conflict`). Unmetered: it changes no unit count.
   */
  patchPrompt(
    bearer: string,
    workspaceId: string,
    projectId: string,
    promptId: string,
    patch: PatchPromptRequest,
  ): Promise<void>;
  /** `POST /v2/…/{pid}/aio/prompts/{id}/rename` `{new_name}`: renames in the draft layer. */
  renamePrompt(
    bearer: string,
    workspaceId: string,
    projectId: string,
    promptId: string,
    text: string,
  ): Promise<RenamedPrompt>;
  /** `PATCH /v2/…/{pid}/aio/tags/{id}` `{name, parent_id?}`: rename and/or re-parent one tag. */
  patchTag(
    bearer: string,
    workspaceId: string,
    projectId: string,
    tagId: string,
    patch: PatchTagRequest,
  ): Promise<Tag>;
  /** `DELETE /v2/…/{pid}/aio/tags` `{ids, cascade?}` (204); the tags leave every prompt. */
  deleteTags(
    bearer: string,
    workspaceId: string,
    projectId: string,
    request: DeleteTagsRequest,
  ): Promise<void>;
  /** `GET /v2/…/{pid}/aio/init_status`: whether the project's AI initialisation has finished. */
  getInitStatus(bearer: string, workspaceId: string, projectId: string): Promise<boolean>;
}

const PROJECT = "/v1/workspaces/{ws}/projects/{pid}";
const PROJECT_V2 = "/v2/workspaces/{ws}/projects/{pid}";
const PROJECT_V3 = "/v3/workspaces/{ws}/projects/{pid}";

/** The largest page the prompt list accepts. */
export const MAX_PROMPT_PAGE_SIZE = 200;

export function createProjectEngineClient(transport: GatewayTransport, clock: Clock): ProjectEngineClient {
  const pe = <T>(
    bearer: string,
    method: HttpMethod,
    route: string,
    params: Record<string, string>,
    extra: {
      query?: Record<string, QueryValue>;
      body?: unknown;
      response?: ZodType<T>;
      signal?: AbortSignal;
      scope?: UpstreamScope;
      idempotent?: boolean;
    } = {},
  ) => transport.send<T>(bearer, { gateway: "pe", method, route, params, ...extra });
  const inProject = (ws: string, pid: string) => ({ ws, pid });

  return {
    listLanguages: (bearer) => pe(bearer, "GET", "/v1/languages", {}, { response: wirePage(languageWire) }),
    listAiModels: (bearer, request = {}) =>
      pe(bearer, "GET", "/v1/ai_models", {}, { query: { ...request }, response: wirePage(aiModelWire) }),
    listProjects: (bearer, ws, request = {}, options) =>
      pe(
        bearer,
        "GET",
        "/v1/workspaces/{ws}/projects",
        { ws },
        {
          query: { type: "ai", ...request },
          response: wirePage(projectWire),
          signal: options?.signal,
          scope: options?.scope,
        },
      ),
    createProject: (bearer, ws, request) =>
      pe(
        bearer,
        "POST",
        "/v1/workspaces/{ws}/projects",
        { ws },
        {
          body: {
            name: request.name,
            type: "ai",
            brand_name_display: request.brandNameDisplay,
            brand_names: request.brandNames,
            domain: request.domain,
            country_code: request.countryCode.toLowerCase(),
            location_id: request.locationId,
            location_name: request.locationName,
            language_id: request.languageId,
          },
          response: projectWire,
        },
      ),
    getProject: (bearer, ws, pid) =>
      pe(bearer, "GET", PROJECT, inProject(ws, pid), {
        query: { draft: true, type: "ai" },
        response: projectWire,
      }),
    patchProject: (bearer, ws, pid, patch) =>
      pe(bearer, "PATCH", PROJECT, inProject(ws, pid), {
        body: {
          type: "ai",
          primary_url: patch.primaryUrl,
          brand_name_display: patch.brandNameDisplay,
          brand_names: patch.brandNames,
        },
        response: projectWire,
      }),
    deleteProject: (bearer, ws, pid, options) =>
      pe(bearer, "DELETE", PROJECT, inProject(ws, pid), { signal: options?.signal, scope: options?.scope }),
    // Publishing twice publishes once: safe to repeat after a lost answer.
    publishProject: (bearer, ws, pid) =>
      pe(bearer, "POST", `${PROJECT}/publish`, inProject(ws, pid), { idempotent: true }),
    getBrandTopics: (bearer, ws, { domain, country }) =>
      pe(
        bearer,
        "GET",
        "/v1/workspaces/{ws}/brand-topics",
        { ws },
        {
          query: { domain, country },
          response: brandTopicsWire,
        },
      ),
    listProjectAiModels: (bearer, ws, pid) =>
      pe(bearer, "GET", `${PROJECT}/ai_models`, inProject(ws, pid), { response: aiModelAssignmentsWire }),
    addProjectAiModel: (bearer, ws, pid, modelId) =>
      pe(bearer, "POST", `${PROJECT_V2}/ai_models`, inProject(ws, pid), {
        body: { model_id: modelId },
        response: addedAiModelWire,
      }),
    deleteProjectAiModels: (bearer, ws, pid, assignmentIds) =>
      pe(bearer, "DELETE", `${PROJECT}/ai_models`, inProject(ws, pid), { body: { ids: assignmentIds } }),
    listPrompts: (bearer, ws, pid, request = {}) =>
      pe(bearer, "POST", `${PROJECT_V2}/aio/prompts/by_tags`, inProject(ws, pid), {
        query: { include_metadata: true, draft: request.draft ? true : undefined },
        body: {
          tag_ids: request.tagIds ?? [],
          page: request.page ?? 1,
          limit: Math.min(request.limit ?? MAX_PROMPT_PAGE_SIZE, MAX_PROMPT_PAGE_SIZE),
          ...(request.search ? { search: request.search } : {}),
          ...(request.sortField ? { sort_field: request.sortField, sort_dir: request.sortDir ?? "asc" } : {}),
        },
        response: wirePage(promptWire),
        // A read sent as POST.
        idempotent: true,
      }),
    createPrompts: (bearer, ws, pid, request) => {
      const at = clock.now().toISOString();
      return pe(bearer, "POST", `${PROJECT_V3}/aio/prompts`, inProject(ws, pid), {
        body: {
          items: request.texts.map((name) => ({
            name,
            metadata: {
              created_at: at,
              created_by: request.createdBy,
              updated_at: at,
              updated_by: request.createdBy,
            },
          })),
          tag_ids: request.tagIds ?? [],
        },
        response: createPromptsWire,
        // Upstream deduplicates by exact text: a repeat answers is_new: false and consumes nothing.
        idempotent: true,
      });
    },
    deletePrompts: (bearer, ws, pid, promptIds) =>
      pe(bearer, "DELETE", `${PROJECT_V2}/aio/prompts`, inProject(ws, pid), { body: { ids: promptIds } }),
    listTags: (bearer, ws, pid, request = {}) =>
      pe(bearer, "GET", `${PROJECT_V2}/aio/tags`, inProject(ws, pid), {
        // Both are required upstream, even empty.
        query: { parent_id: request.parentId ?? "", search: request.search ?? "", draft: true },
        response: tagListWire,
      }),
    createTags: (bearer, ws, pid, request) =>
      pe(bearer, "POST", `${PROJECT_V2}/aio/tags`, inProject(ws, pid), {
        body:
          request.parentId === undefined
            ? { names: request.names }
            : { names: request.names, parent_id: request.parentId },
        response: createdTagsWire,
      }),
    setPromptTags: (bearer, ws, pid, assignments) =>
      pe(bearer, "PUT", `${PROJECT_V2}/aio/prompts/tags`, inProject(ws, pid), {
        body: {
          items: assignments.map((a) => ({ id: a.promptId, references: a.tagIds, replace: a.replace })),
        },
      }),
    patchPrompt: (bearer, ws, pid, promptId, patch) =>
      pe(
        bearer,
        "PATCH",
        `${PROJECT_V3}/aio/prompts/{prompt}`,
        { ...inProject(ws, pid), prompt: promptId },
        {
          body: {
            ...(patch.text === undefined ? {} : { name: patch.text }),
            ...(patch.metadata === undefined ? {} : { metadata: metadataPatch(patch.metadata) }),
          },
          // A merge patch: sending it twice leaves the same prompt.
          idempotent: true,
        },
      ),
    renamePrompt: async (bearer, ws, pid, promptId, text) => {
      const answer = await pe(
        bearer,
        "POST",
        `${PROJECT_V2}/aio/prompts/{prompt}/rename`,
        { ...inProject(ws, pid), prompt: promptId },
        { body: { new_name: text }, response: renamedPromptWire },
      );
      return { id: answer.id ?? promptId, text: answer.text ?? text, updated: answer.updated };
    },
    patchTag: (bearer, ws, pid, tagId, patch) =>
      pe(
        bearer,
        "PATCH",
        `${PROJECT_V2}/aio/tags/{tag}`,
        { ...inProject(ws, pid), tag: tagId },
        {
          body:
            patch.parentId === undefined
              ? { name: patch.name }
              : { name: patch.name, parent_id: patch.parentId },
          response: treeNodeWire,
          idempotent: true,
        },
      ),
    deleteTags: (bearer, ws, pid, request) =>
      pe(bearer, "DELETE", `${PROJECT_V2}/aio/tags`, inProject(ws, pid), {
        // The document marks a `prompt_id` query parameter of this operation required (its
        // description says "prompt ID" on a tag delete: evidently carried over from another
        // operation). Sent empty, as the tag list's required-but-empty parameters are.
        query: { prompt_id: "" },
        body:
          request.cascade === undefined
            ? { ids: request.ids }
            : { ids: request.ids, cascade: request.cascade },
      }),
    getInitStatus: (bearer, ws, pid) =>
      pe(bearer, "GET", `${PROJECT_V2}/aio/init_status`, inProject(ws, pid), { response: initStatusWire }),
  };
}

/** The domain's metadata patch in the wire's snake_case (absent = keep, null = delete). */
function metadataPatch(patch: NonNullable<PatchPromptRequest["metadata"]>): Record<string, string | null> {
  const wire: Record<string, string | null> = {};
  if (patch.createdAt !== undefined) wire.created_at = patch.createdAt;
  if (patch.createdBy !== undefined) wire.created_by = patch.createdBy;
  if (patch.updatedAt !== undefined) wire.updated_at = patch.updatedAt;
  if (patch.updatedBy !== undefined) wire.updated_by = patch.updatedBy;
  return wire;
}
