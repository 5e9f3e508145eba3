import type { FastifyInstance } from "fastify";
import { z } from "zod";

import { publishUnits, returnAllUnits, stageUnits } from "../../accounting.ts";
import { DEFAULT_PROJECT_MODEL_KEYS, modelByKey } from "../../catalogue/aiModels.ts";
import { countryByCode, MAX_LOCATION_ID, MIN_LOCATION_ID } from "../../catalogue/countries.ts";
import { languageById } from "../../catalogue/languages.ts";
import type { SimContext } from "../../context.ts";
import { parseOrReject, peError, quotaRejected } from "../../http/responses.ts";
import { publishStatusOf } from "../../lifecycle.ts";
import { canPublish, canStage } from "../../metering.ts";
import { zeroPerDimension } from "../../store/simulatorStore.ts";
import type { SimProject } from "../../store/types.ts";
import { projectView } from "../../views.ts";
import { mainBrandBenchmark } from "./benchmarks.ts";
import {
  catalogueId,
  findProject,
  findWorkspace,
  locationId as locationIdOf,
  type ProjectParams,
} from "./lookup.ts";

const listQuery = z.object({
  type: z.literal("ai"),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const createBody = z.object({
  name: z.string().min(1),
  type: z.literal("ai"),
  brand_name_display: z.string().default(""),
  brand_names: z.array(z.string()).default([]),
  domain: z.string().default(""),
  country_code: z.string().regex(/^[a-z]{2}$/, "lower-case ISO-3166 alpha-2 expected"),
  location_id: z.unknown(),
  location_name: z.string().default(""),
  language_id: z.unknown(),
  // Accepted and ignored on create, as live does: only PATCH sets it.
  primary_url: z.unknown().optional(),
});

const patchBody = z.object({
  type: z.literal("ai"),
  name: z.string().min(1).optional(),
  primary_url: z.string().nullable().optional(),
  brand_name_display: z.string().optional(),
  brand_names: z.array(z.string()).optional(),
});

function locationIsValid(countryCode: string, locationId: number | undefined): locationId is number {
  if (locationId === undefined || locationId < MIN_LOCATION_ID || locationId > MAX_LOCATION_ID) return false;
  const known = countryByCode(countryCode);
  return !known || locationId === 2000 + known.numeric;
}

/** Project Engine: market projects, a draft until published (spec/gateway.md §2, §4). */
export function registerProjectRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { store } = ctx;

  app.get<{ Params: { ws: string } }>("/v1/workspaces/:ws/projects", async (request, reply) => {
    const query = parseOrReject(listQuery, request.query, reply, "pe");
    if (!query) return reply;
    const workspace = findWorkspace(ctx, request.params.ws, reply);
    if (!workspace) return reply;
    const visible: SimProject[] = [];
    for (const project of store.projectsOf(workspace.id)) {
      // Eventual consistency: a new project is missing from the first `listLagReads` list reads.
      if (project.hiddenFromListReads > 0) project.hiddenFromListReads -= 1;
      else visible.push(project);
    }
    const start = (query.page - 1) * query.limit;
    return {
      items: visible
        .slice(start, start + query.limit)
        .map((project) => projectView(project, publishStatusOf(project, false))),
      page: query.page,
      total: visible.length,
    };
  });

  app.post<{ Params: { ws: string } }>("/v1/workspaces/:ws/projects", async (request, reply) => {
    const body = parseOrReject(createBody, request.body, reply, "pe");
    if (!body) return reply;
    const workspace = findWorkspace(ctx, request.params.ws, reply);
    if (!workspace) return reply;
    const languageId = catalogueId(body.language_id);
    if (languageId === undefined || !languageById(languageId)) return peError(reply, 400, "invalid language");
    const locationId = locationIdOf(body.location_id);
    if (!locationIsValid(body.country_code, locationId)) return peError(reply, 400, "invalid location");
    const now = ctx.now();
    if (!canStage(store, workspace, { projects: 1 }, now)) return quotaRejected(reply);

    const project: SimProject = {
      id: ctx.newId(),
      workspaceId: workspace.id,
      name: body.name,
      brandNameDisplay: body.brand_name_display,
      brandNames: body.brand_names,
      domain: body.domain,
      primaryUrl: null,
      countryCode: body.country_code,
      locationId,
      locationName: body.location_name,
      languageId,
      publishState: "draft",
      dirty: false,
      publishingReads: 0,
      createdAt: now,
      updatedAt: now,
      staged: zeroPerDimension(),
      published: zeroPerDimension(),
      models: DEFAULT_PROJECT_MODEL_KEYS.map((key) => ({ id: ctx.newId(), modelId: modelByKey(key)!.id })),
      prompts: new Map(),
      promptIdByText: new Map(),
      tags: new Map(),
      benchmarks: new Map(),
      ciCompetitors: [],
      hiddenFromListReads: ctx.settings.listLagReads,
    };
    // The own brand's benchmark comes with the project (its name, aliases and domain from the create).
    const mainBrand = mainBrandBenchmark(ctx.newId(), body, now);
    project.benchmarks.set(mainBrand.id, mainBrand);
    store.projects.set(project.id, project);
    stageUnits(workspace, project, "projects", 1);
    return reply.code(201).send(projectView(project, publishStatusOf(project, false)));
  });

  // `draft=true` is accepted (it is how callers observe completion); the simulator keeps one project
  // record, so the flag changes nothing for the project itself.
  app.get<{ Params: ProjectParams }>("/v1/workspaces/:ws/projects/:pid", async (request, reply) => {
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    return projectView(found.project, publishStatusOf(found.project, true));
  });

  app.patch<{ Params: ProjectParams }>("/v1/workspaces/:ws/projects/:pid", async (request, reply) => {
    const body = parseOrReject(patchBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    if (body.name !== undefined) project.name = body.name;
    if (body.primary_url !== undefined) project.primaryUrl = body.primary_url;
    if (body.brand_name_display !== undefined) project.brandNameDisplay = body.brand_name_display;
    if (body.brand_names !== undefined) project.brandNames = body.brand_names;
    project.updatedAt = ctx.now();
    if (project.publishState === "live") project.dirty = true;
    return projectView(project, publishStatusOf(project, false));
  });

  app.delete<{ Params: ProjectParams }>("/v1/workspaces/:ws/projects/:pid", async (request, reply) => {
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    returnAllUnits(found.workspace, found.project);
    store.projects.delete(found.project.id);
    return reply.code(204).send();
  });

  app.post<{ Params: ProjectParams }>("/v1/workspaces/:ws/projects/:pid/publish", async (request, reply) => {
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { workspace, project } = found;
    const now = ctx.now();
    if (!canPublish(store, workspace, project, now)) return quotaRejected(reply);
    if (project.primaryUrl === null && project.publishState !== "live") {
      // A project's first publish needs its primary URL (set by PATCH): live accepts the call and
      // the background publish fails.
      project.publishState = "initial_publish_failed";
      return reply.code(202).send();
    }
    publishUnits(workspace, project, ctx.settings, now);
    for (const prompt of project.prompts.values()) {
      prompt.live = true;
      prompt.liveName = prompt.name;
    }
    for (const tag of project.tags.values()) tag.live = true;
    project.dirty = false;
    project.publishState = "live";
    project.publishingReads = ctx.settings.publishReads;
    project.updatedAt = now;
    return reply.code(202).send();
  });
}
