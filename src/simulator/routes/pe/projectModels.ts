import type { FastifyInstance } from "fastify";
import { z } from "zod";

import { returnUnits, stageUnits } from "../../accounting.ts";
import { modelById } from "../../catalogue/aiModels.ts";
import type { SimContext } from "../../context.ts";
import { parseOrReject, peError, quotaRejected } from "../../http/responses.ts";
import { canStage } from "../../metering.ts";
import { assignmentView } from "../../views.ts";
import { catalogueId, findProject, type ProjectParams } from "./lookup.ts";

const addBody = z.object({ model_id: z.unknown() });
const deleteBody = z.object({ ids: z.array(z.string()) });

const PROJECT = "/workspaces/:ws/projects/:pid";

/** Project Engine: a project's model set; adding a model to `t` texts stages `t` prompt units. */
export function registerProjectModelRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get<{ Params: ProjectParams }>(`/v1${PROJECT}/ai_models`, async (request, reply) => {
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    return {
      items: project.models.map((assignment) =>
        assignmentView(assignment, modelById(assignment.modelId)!, project.prompts.size),
      ),
    };
  });

  app.post<{ Params: ProjectParams }>(`/v2${PROJECT}/ai_models`, async (request, reply) => {
    const body = parseOrReject(addBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { workspace, project } = found;
    const modelId = catalogueId(body.model_id);
    const model = modelId === undefined ? undefined : modelById(modelId);
    if (!model) return peError(reply, 400, "invalid model");
    if (project.models.some((assignment) => assignment.modelId === model.id)) {
      return peError(reply, 409, "model already added");
    }
    const units = project.prompts.size;
    if (!canStage(ctx.store, workspace, { prompts: units }, ctx.now())) return quotaRejected(reply);
    const assignment = { id: ctx.newId(), modelId: model.id };
    project.models.push(assignment);
    stageUnits(workspace, project, "prompts", units);
    project.updatedAt = ctx.now();
    return reply.code(201).send(assignmentView(assignment, model, units));
  });

  app.delete<{ Params: ProjectParams }>(`/v1${PROJECT}/ai_models`, async (request, reply) => {
    const body = parseOrReject(deleteBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { workspace, project } = found;
    const ids = new Set(body.ids);
    const removed = project.models.filter((assignment) => ids.has(assignment.id));
    if (removed.length > 0) {
      project.models = project.models.filter((assignment) => !ids.has(assignment.id));
      returnUnits(workspace, project, "prompts", removed.length * project.prompts.size);
      project.dirty = project.publishState === "live" || project.dirty;
      project.updatedAt = ctx.now();
    }
    return reply.code(204).send();
  });
}
