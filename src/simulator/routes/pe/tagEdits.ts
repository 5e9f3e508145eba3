import type { FastifyInstance } from "fastify";
import { z } from "zod";

import type { SimContext } from "../../context.ts";
import { notFound, parseOrReject, peError } from "../../http/responses.ts";
import type { SimProject } from "../../store/types.ts";
import { createdTagView } from "../../views.ts";
import { findProject, type ProjectParams } from "./lookup.ts";

// The published TreeNodeRequest: `name` required; `parent_id` nullable (null = a root).
const patchBody = z.object({
  name: z.string().min(1),
  parent_id: z.string().min(1).nullable().optional(),
});

// The published BatchDeleteRequest: `ids` required.
const deleteBody = z.object({
  ids: z.array(z.string()),
  all: z.boolean().optional(),
  cascade: z.boolean().optional(),
});

const PROJECT = "/v2/workspaces/:ws/projects/:pid";

/** `id` and every tag below it. */
function subtree(project: SimProject, id: string): Set<string> {
  const found = new Set([id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const tag of project.tags.values()) {
      if (tag.parentId !== null && found.has(tag.parentId) && !found.has(tag.id)) {
        found.add(tag.id);
        grew = true;
      }
    }
  }
  return found;
}

/**
 * Project Engine: a tag renamed or moved (`PATCH …/aio/tags/{id}`) and tags deleted
 * (`DELETE …/aio/tags`). The tree's rules hold as on create: names unique per (project, parent),
 * a duplicate a bare 500; a move under the tag itself or its own subtree is refused the same way.
 */
export function registerTagEditRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.patch<{ Params: ProjectParams & { tag: string } }>(
    `${PROJECT}/aio/tags/:tag`,
    async (request, reply) => {
      const body = parseOrReject(patchBody, request.body, reply, "pe");
      if (!body) return reply;
      const found = findProject(ctx, request.params, reply);
      if (!found) return reply;
      const { project } = found;
      const tag = project.tags.get(request.params.tag);
      if (!tag) return notFound(reply);
      const parentId = body.parent_id === undefined ? tag.parentId : body.parent_id;
      if (parentId !== null && !project.tags.has(parentId)) return notFound(reply);
      if (parentId !== null && subtree(project, tag.id).has(parentId)) {
        return peError(reply, 500, "Internal Server Error");
      }
      const clash = [...project.tags.values()].some(
        (other) => other.id !== tag.id && other.parentId === parentId && other.name === body.name,
      );
      if (clash) return peError(reply, 500, "Internal Server Error");
      if (tag.name !== body.name || tag.parentId !== parentId) {
        tag.name = body.name;
        tag.parentId = parentId;
        if (tag.live) project.dirty = true;
        project.updatedAt = ctx.now();
      }
      const children = [...project.tags.values()].filter((child) => child.parentId === tag.id).length;
      const prompts = [...project.prompts.values()].filter((prompt) => prompt.tagIds.includes(tag.id)).length;
      return { ...createdTagView(tag), children_count: children, keyword_count: prompts };
    },
  );

  app.delete<{ Params: ProjectParams }>(`${PROJECT}/aio/tags`, async (request, reply) => {
    const body = parseOrReject(deleteBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    const ids = body.all ? [...project.tags.keys()] : body.ids.filter((id) => project.tags.has(id));
    const doomed = new Set<string>();
    for (const id of ids) {
      const below = subtree(project, id);
      // Without `cascade`, a tag whose children are not deleted with it is refused (nothing moves).
      if (!body.cascade && [...below].some((child) => !ids.includes(child))) {
        return peError(reply, 500, "Internal Server Error");
      }
      for (const child of below) doomed.add(child);
    }
    if (doomed.size === 0) return reply.code(204).send();
    for (const id of doomed) project.tags.delete(id);
    for (const prompt of project.prompts.values()) {
      const kept = prompt.tagIds.filter((id) => !doomed.has(id));
      if (kept.length === prompt.tagIds.length) continue;
      prompt.tagIds = kept;
      if (prompt.live) project.dirty = true;
    }
    project.dirty = true;
    project.updatedAt = ctx.now();
    return reply.code(204).send();
  });
}
