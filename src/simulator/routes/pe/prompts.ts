import type { FastifyInstance } from "fastify";
import { z } from "zod";

import { returnUnits, stageUnits } from "../../accounting.ts";
import type { SimContext } from "../../context.ts";
import { parseOrReject, peError, quotaRejected } from "../../http/responses.ts";
import { canStage, promptUnits } from "../../metering.ts";
import type { SimPrompt } from "../../store/types.ts";
import { promptView } from "../../views.ts";
import { findProject, isTrue, type ProjectParams } from "./lookup.ts";

const createBody = z.object({
  items: z
    .array(
      z.object({
        name: z.string().min(1),
        metadata: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .min(1),
  tag_ids: z.array(z.string()).default([]),
});

const SORT_FIELDS = ["name", "created_at", "updated_at"] as const;

const listBody = z.object({
  tag_ids: z.array(z.string()).default([]),
  page: z.number().int().min(1).default(1),
  limit: z.number().int().min(1).max(200).default(100),
  search: z.string().default(""),
  sort_field: z.enum(SORT_FIELDS).optional(),
  sort_dir: z.enum(["asc", "desc"]).default("asc"),
  unassigned: z.boolean().default(false),
});

function shownName(prompt: SimPrompt, draft: boolean): string {
  return draft ? prompt.name : (prompt.liveName ?? prompt.name);
}

/** The sort key of a prompt: its text, or a metadata time (absent sorts first). */
function sortKey(prompt: SimPrompt, field: (typeof SORT_FIELDS)[number]): string {
  if (field === "name") return prompt.name;
  const value = prompt.metadata[field];
  return typeof value === "string" ? value : "";
}

const deleteBody = z.object({ ids: z.array(z.string()) });

const tagsBody = z.object({
  items: z.array(
    z.object({ id: z.string(), references: z.array(z.string()), replace: z.boolean().default(false) }),
  ),
});

const PROJECT = "/workspaces/:ws/projects/:pid";

/** Project Engine: prompts, de-duplicated by exact text, written to the draft layer. */
export function registerPromptRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post<{ Params: ProjectParams }>(`/v3${PROJECT}/aio/prompts`, async (request, reply) => {
    const body = parseOrReject(createBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { workspace, project } = found;
    const tagIds = [...new Set(body.tag_ids)];
    // An unknown tag fails the whole call with a bare 500, before anything is created.
    if (tagIds.some((id) => !project.tags.has(id))) return peError(reply, 500, "Internal Server Error");

    const newTexts = new Set(
      body.items.map((item) => item.name).filter((name) => !project.promptIdByText.has(name)),
    );
    const units = promptUnits(newTexts.size, project.models.length);
    const now = ctx.now();
    if (!canStage(ctx.store, workspace, { prompts: units }, now)) return quotaRejected(reply);

    const stamp = new Date(now).toISOString();
    const items = body.items.map((item) => {
      const existingId = project.promptIdByText.get(item.name);
      if (existingId) {
        const existing = project.prompts.get(existingId)!;
        return { id: existing.id, name: existing.name, is_new: false, metadata: { ...existing.metadata } };
      }
      const prompt: SimPrompt = {
        id: ctx.newId(),
        name: item.name,
        live: false,
        tagIds: [...tagIds],
        // Without metadata in the request, only the times (the published type has no null author).
        metadata: item.metadata ?? { created_at: stamp, updated_at: stamp },
      };
      project.prompts.set(prompt.id, prompt);
      project.promptIdByText.set(prompt.name, prompt.id);
      return { id: prompt.id, name: prompt.name, is_new: true, metadata: { ...prompt.metadata } };
    });
    stageUnits(workspace, project, "prompts", units);
    if (newTexts.size > 0) project.updatedAt = now;
    const existingCount = items.filter((item) => !item.is_new).length;
    return reply.code(201).send({ items, existing_count: existingCount });
  });

  app.post<{ Params: ProjectParams; Querystring: Record<string, string> }>(
    `/v2${PROJECT}/aio/prompts/by_tags`,
    async (request, reply) => {
      const body = parseOrReject(listBody, request.body, reply, "pe");
      if (!body) return reply;
      const found = findProject(ctx, request.params, reply);
      if (!found) return reply;
      const { project } = found;
      const includeDrafts = isTrue(request.query.draft);
      const includeMetadata = isTrue(request.query.include_metadata);
      const wanted = new Set(body.tag_ids);
      const search = body.search.toLowerCase();
      const matching = [...project.prompts.values()].filter(
        (prompt) =>
          (includeDrafts || prompt.live) &&
          (wanted.size === 0 || prompt.tagIds.some((id) => wanted.has(id))) &&
          (!body.unassigned || prompt.tagIds.length === 0) &&
          (search === "" || shownName(prompt, includeDrafts).toLowerCase().includes(search)),
      );
      const field = body.sort_field;
      if (field !== undefined) {
        // A stable sort: equal keys keep their insertion order, whichever the direction.
        const direction = body.sort_dir === "desc" ? -1 : 1;
        const position = new Map(matching.map((prompt, index) => [prompt.id, index]));
        matching.sort((a, b) => {
          const [x, y] = [sortKey(a, field), sortKey(b, field)];
          if (x !== y) return (x < y ? -1 : 1) * direction;
          return position.get(a.id)! - position.get(b.id)!;
        });
      }
      const start = (body.page - 1) * body.limit;
      return {
        items: matching
          .slice(start, start + body.limit)
          .map((prompt) => promptView(prompt, project, { includeMetadata, draft: includeDrafts })),
        page: body.page,
        total: matching.length,
      };
    },
  );

  app.delete<{ Params: ProjectParams }>(`/v2${PROJECT}/aio/prompts`, async (request, reply) => {
    const body = parseOrReject(deleteBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { workspace, project } = found;
    for (const id of new Set(body.ids)) {
      const prompt = project.prompts.get(id);
      if (!prompt) continue;
      project.prompts.delete(id);
      project.promptIdByText.delete(prompt.name);
      returnUnits(workspace, project, "prompts", project.models.length);
      if (prompt.live) project.dirty = true;
    }
    return reply.code(204).send();
  });

  app.put<{ Params: ProjectParams }>(`/v2${PROJECT}/aio/prompts/tags`, async (request, reply) => {
    const body = parseOrReject(tagsBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    if (body.items.some((item) => item.references.some((id) => !project.tags.has(id)))) {
      return peError(reply, 500, "Internal Server Error");
    }
    for (const item of body.items) {
      // Unknown prompt ids are skipped silently, as live does.
      const prompt = project.prompts.get(item.id);
      if (!prompt) continue;
      prompt.tagIds = item.replace
        ? [...new Set(item.references)]
        : [...new Set([...prompt.tagIds, ...item.references])];
      if (prompt.live) project.dirty = true;
    }
    return reply.code(204).send();
  });
}
