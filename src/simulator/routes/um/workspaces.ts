import type { FastifyInstance } from "fastify";
import { z } from "zod";

import type { SimContext } from "../../context.ts";
import {
  INSUFFICIENT_UNITS,
  invalidAccess,
  parseOrReject,
  umError,
  WORKSPACE_NOT_READY,
} from "../../http/responses.ts";
import { observeStatus } from "../../lifecycle.ts";
import { newWorkspace } from "../../store/simulatorStore.ts";
import { DIMENSIONS } from "../../store/types.ts";
import { applyTransfer, planTransfer } from "../../transfer.ts";
import { workspaceSummary, workspaceView } from "../../views.ts";

type WsParams = { ws: string };

const allocation = z
  .object({ projects: z.number().int().min(0).optional(), prompts: z.number().int().min(0).optional() })
  .optional();

const createChildBody = z.object({
  title: z.string().min(1),
  // Required, may be empty; an allocation is `resources.ai.{projects,prompts}`.
  resources: z.object({ ai: allocation }).passthrough(),
});

/** User Manager: sub-workspace lifecycle (spec/gateway.md §2, §4). */
export function registerWorkspaceRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { store } = ctx;

  app.post<{ Params: { parent: string } }>("/v2/workspaces/:parent/child", async (request, reply) => {
    const body = parseOrReject(createChildBody, request.body, reply, "um");
    if (!body) return reply;
    const parent = store.workspace(request.params.parent);
    if (!parent) return invalidAccess(reply);
    const empty = { used: 0, drafted: 0, total: 0 };
    const plan = planTransfer({ projects: empty, prompts: empty }, parent.resources, body.resources.ai ?? {});
    if (!plan.ok) return umError(reply, 422, INSUFFICIENT_UNITS);

    const now = ctx.now();
    const child = newWorkspace({ id: ctx.newId(), title: body.title, parentId: parent.id, createdAt: now });
    if (ctx.settings.settleMode === "reads") child.notReadyReads = ctx.settings.settleReads;
    else child.settleUntil = now + ctx.settings.settleMs;
    child.notReadyTransfers = ctx.settings.notReadyTransfers;
    const rule = store.titleRules.get(body.title);
    if (rule?.status !== undefined) child.status = rule.status;
    if (rule?.notReadyReads !== undefined) child.notReadyReads = rule.notReadyReads;
    applyTransfer(child, parent, plan.deltas, now, ctx.settings.enforcementLagMs);
    store.workspaces.set(child.id, child);
    // Creation is asynchronous upstream: the acknowledgement always reads `not ready`.
    return reply.code(200).send(workspaceSummary(child, "not ready"));
  });

  app.get<{ Params: WsParams }>("/v1/workspaces/:ws/status", async (request, reply) => {
    const workspace = store.workspace(request.params.ws);
    if (!workspace) {
      const deletingReads = store.deleting.get(request.params.ws) ?? 0;
      if (deletingReads <= 0) return invalidAccess(reply);
      store.deleting.set(request.params.ws, deletingReads - 1);
      return { status: "deleting" };
    }
    return { status: observeStatus(workspace, ctx.now(), true) };
  });

  app.get<{ Params: WsParams }>("/v1/workspaces/:ws/family", async (request, reply) => {
    const family = store.family(request.params.ws);
    if (family.length === 0) return invalidAccess(reply);
    const now = ctx.now();
    return family.map((workspace) => workspaceSummary(workspace, observeStatus(workspace, now, true)));
  });

  app.get<{ Params: WsParams }>("/v1/workspaces/:ws", async (request, reply) => {
    const workspace = store.workspace(request.params.ws);
    if (!workspace) return invalidAccess(reply);
    return workspaceView(workspace, observeStatus(workspace, ctx.now(), true), store.isMetered(workspace));
  });

  // The published workspaceUpsertForm: `title` required, `icon` optional.
  app.put<{ Params: WsParams }>("/v1/workspaces/:ws", async (request, reply) => {
    const body = parseOrReject(
      z.object({ title: z.string().min(1), icon: z.string().optional() }),
      request.body,
      reply,
      "um",
    );
    if (!body) return reply;
    const workspace = store.workspace(request.params.ws);
    if (!workspace) return invalidAccess(reply);
    workspace.title = body.title;
    return workspaceView(workspace, observeStatus(workspace, ctx.now(), true), store.isMetered(workspace));
  });

  app.delete<{ Params: WsParams }>("/v1/workspaces/:ws", async (request, reply) => {
    const workspace = store.workspace(request.params.ws);
    if (!workspace) return invalidAccess(reply);
    // A settling workspace (and a zombie, which never settles) cannot be deleted.
    if (observeStatus(workspace, ctx.now(), false) === "not ready") {
      return umError(reply, 422, WORKSPACE_NOT_READY);
    }
    const family = store.family(workspace.id);
    const parent = workspace.parentId ? store.workspace(workspace.parentId) : undefined;
    for (const member of family) {
      // The subtree's allocations return to the deleted workspace's parent (what it was carved from).
      if (parent)
        for (const dimension of DIMENSIONS)
          parent.resources[dimension].total += member.resources[dimension].total;
      for (const project of store.projectsOf(member.id)) store.projects.delete(project.id);
      store.workspaces.delete(member.id);
      store.deleting.set(member.id, ctx.settings.deletingReads);
    }
    return { id: workspace.id };
  });
}
