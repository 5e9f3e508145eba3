import type { FastifyInstance } from "fastify";
import { z } from "zod";

import type { SimContext } from "../../context.ts";
import { notFound, parseOrReject, peError } from "../../http/responses.ts";
import type { SimProject, SimTag } from "../../store/types.ts";
import { createdTagView, tagView } from "../../views.ts";
import { findProject, isTrue, type ProjectParams } from "./lookup.ts";

// Both are required by live, and both may be empty (empty parent_id = the root level).
const listQuery = z.object({ parent_id: z.string(), search: z.string(), draft: z.string().optional() });

const createBody = z.object({
  names: z.array(z.string().min(1)).min(1),
  parent_id: z.string().min(1).nullable().optional(),
});

const PROJECT = "/v2/workspaces/:ws/projects/:pid";

function visibleTags(project: SimProject, includeDrafts: boolean): SimTag[] {
  return [...project.tags.values()].filter((tag) => includeDrafts || tag.live);
}

/** Project Engine: the generic tag tree of a project; names unique per (project, parent). */
export function registerTagRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get<{ Params: ProjectParams }>(`${PROJECT}/aio/tags`, async (request, reply) => {
    const query = parseOrReject(listQuery, request.query, reply, "pe");
    if (!query) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    const tags = visibleTags(project, isTrue(query.draft));
    const parentId = query.parent_id === "" ? null : query.parent_id;
    const search = query.search.toLowerCase();
    const visiblePrompts = [...project.prompts.values()].filter(
      (prompt) => isTrue(query.draft) || prompt.live,
    );
    const items = tags
      .filter((tag) => tag.parentId === parentId && tag.name.toLowerCase().includes(search))
      .map((tag) =>
        tagView(
          tag,
          tags.filter((child) => child.parentId === tag.id).length,
          visiblePrompts.filter((prompt) => prompt.tagIds.includes(tag.id)).length,
        ),
      );
    return { items };
  });

  app.post<{ Params: ProjectParams }>(`${PROJECT}/aio/tags`, async (request, reply) => {
    const body = parseOrReject(createBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    const parentId = body.parent_id ?? null;
    if (parentId !== null && !project.tags.has(parentId)) return notFound(reply);
    const siblings = new Set(
      [...project.tags.values()].filter((tag) => tag.parentId === parentId).map((tag) => tag.name),
    );
    const names = new Set<string>();
    for (const name of body.names) {
      // A duplicate (parent, name) is a bare 500 upstream, and nothing is created.
      if (siblings.has(name) || names.has(name)) return peError(reply, 500, "Internal Server Error");
      names.add(name);
    }
    const created = [...names].map((name) => {
      const tag: SimTag = { id: ctx.newId(), name, parentId, live: false };
      project.tags.set(tag.id, tag);
      return createdTagView(tag);
    });
    project.updatedAt = ctx.now();
    return reply.code(201).send(created);
  });
}
