import type { FastifyReply } from "fastify";

import type { SimContext } from "../../context.ts";
import { invalidAccess, notFound } from "../../http/responses.ts";
import type { SimProject, SimWorkspace } from "../../store/types.ts";

export type ProjectParams = { ws: string; pid: string };

/** Unknown workspace → 403 (JSON); answers and returns undefined. */
export function findWorkspace(ctx: SimContext, id: string, reply: FastifyReply): SimWorkspace | undefined {
  const workspace = ctx.store.workspace(id);
  if (!workspace) void invalidAccess(reply);
  return workspace;
}

/** Unknown workspace → 403; unknown project (or one of another workspace) → 404 `not found`. */
export function findProject(
  ctx: SimContext,
  params: ProjectParams,
  reply: FastifyReply,
): { workspace: SimWorkspace; project: SimProject } | undefined {
  const workspace = findWorkspace(ctx, params.ws, reply);
  if (!workspace) return undefined;
  const project = ctx.store.project(workspace.id, params.pid);
  if (!project) {
    void notFound(reply);
    return undefined;
  }
  return { workspace, project };
}

export function isTrue(value: unknown): boolean {
  return value === "true" || value === "1";
}

/**
 * A catalogue id (language, model) as the published API types it: a non-empty string. Anything else
 * — a number included — is no catalogue id, and the caller answers 400 as live does.
 */
export function catalogueId(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** A location id: an integer, as the published API types it. */
export function locationId(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}
