import type { FastifyInstance } from "fastify";
import { z } from "zod";

import type { SimContext } from "../../context.ts";
import { notFound, parseOrReject, peError } from "../../http/responses.ts";
import type { SimProject, SimPrompt } from "../../store/types.ts";
import { findProject, type ProjectParams } from "./lookup.ts";

type PromptParams = ProjectParams & { prompt: string };

const METADATA_KEYS = ["created_at", "created_by", "updated_at", "updated_by"] as const;

// RFC 7396 merge patch (the published PatchAIOPromptRequest): `name` may not be null, at least one
// of the two is required; `metadata: null` wipes the block, a key set to null deletes it.
const patchBody = z
  .object({
    name: z.string().min(1).optional(),
    metadata: z
      .object(Object.fromEntries(METADATA_KEYS.map((key) => [key, z.string().nullable().optional()])))
      .nullable()
      .optional(),
  })
  .refine((body) => body.name !== undefined || body.metadata !== undefined, {
    message: "name or metadata is required",
  });

const renameBody = z.object({ new_name: z.string().min(1) });

const PROJECT = "/workspaces/:ws/projects/:pid";

/**
 * Renames `prompt` to `name` in the draft layer, the id kept. A text another prompt of the project
 * holds is a 409 (texts are unique per project); a rename of a published prompt leaves the project
 * with unpublished updates. Answers false (and has answered) on a conflict.
 */
function renameInDraft(project: SimProject, prompt: SimPrompt, name: string): "renamed" | "conflict" {
  if (name === prompt.name) return "renamed";
  const holder = project.promptIdByText.get(name);
  if (holder !== undefined && holder !== prompt.id) return "conflict";
  project.promptIdByText.delete(prompt.name);
  project.promptIdByText.set(name, prompt.id);
  prompt.name = name;
  if (prompt.live) project.dirty = true;
  return "renamed";
}

function mergeMetadata(prompt: SimPrompt, patch: Record<string, string | null | undefined> | null): void {
  if (patch === null) {
    prompt.metadata = {};
    return;
  }
  for (const key of METADATA_KEYS) {
    const value = patch[key];
    if (value === undefined) continue;
    if (value === null) delete prompt.metadata[key];
    else prompt.metadata[key] = value;
  }
}

/**
 * Project Engine: a prompt edited in place (v3 merge patch, v2 rename) and the project's AI
 * initialisation status. Neither edit changes a unit count (spec/gateway.md §3): the text's
 * identity moves, its model slots do not.
 */
export function registerPromptEditRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.patch<{ Params: PromptParams }>(`/v3${PROJECT}/aio/prompts/:prompt`, async (request, reply) => {
    const body = parseOrReject(patchBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    const prompt = project.prompts.get(request.params.prompt);
    if (!prompt) return notFound(reply);
    if (body.name !== undefined && renameInDraft(project, prompt, body.name) === "conflict") {
      return peError(reply, 409, "prompt with this name already exists");
    }
    if (body.metadata !== undefined) mergeMetadata(prompt, body.metadata);
    project.updatedAt = ctx.now();
    return reply.code(204).send();
  });

  app.post<{ Params: PromptParams }>(`/v2${PROJECT}/aio/prompts/:prompt/rename`, async (request, reply) => {
    const body = parseOrReject(renameBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    const prompt = project.prompts.get(request.params.prompt);
    if (!prompt) return notFound(reply);
    const unchanged = body.new_name === prompt.name;
    if (renameInDraft(project, prompt, body.new_name) === "conflict") {
      return peError(reply, 409, "prompt with this name already exists");
    }
    project.updatedAt = ctx.now();
    // As the document says: not updated for a prompt only in the draft layer, a restore of the
    // live text, or no change.
    const updated = prompt.live && !unchanged && prompt.name !== prompt.liveName;
    return { id: prompt.id, name: prompt.name, is_updated: updated };
  });

  app.get<{ Params: ProjectParams }>(`/v2${PROJECT}/aio/init_status`, async (request, reply) => {
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    // Initialised once a publish has made the project live.
    return { initialized: found.project.publishState === "live" };
  });
}
