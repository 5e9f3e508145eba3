import type { FastifyInstance } from "fastify";
import { z } from "zod";

import { readResources } from "../../accounting.ts";
import type { SimContext } from "../../context.ts";
import {
  INSUFFICIENT_UNITS,
  invalidAccess,
  parseOrReject,
  umError,
  WORKSPACE_NOT_READY,
} from "../../http/responses.ts";
import { isReadyStatus, observeStatus } from "../../lifecycle.ts";
import { applyTransfer, planTransfer } from "../../transfer.ts";
import { resourcesDocument, workspaceView } from "../../views.ts";

type WsParams = { ws: string };

const transferBody = z.object({
  resources: z.object({
    ai: z.object({
      projects: z.number().int().min(0).optional(),
      prompts: z.number().int().min(0).optional(),
    }),
  }),
});

/** User Manager: resources and the absolute transfer (spec/gateway.md §3). */
export function registerResourceRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { store } = ctx;

  app.get<{ Params: WsParams }>("/v1/workspaces/:ws/resources", async (request, reply) => {
    const workspace = store.workspace(request.params.ws);
    if (!workspace) return invalidAccess(reply);
    return resourcesDocument(readResources(workspace, ctx.now(), true));
  });

  app.post<{ Params: WsParams }>("/v2/workspaces/:ws/resources/transfer", async (request, reply) => {
    const body = parseOrReject(transferBody, request.body, reply, "um");
    if (!body) return reply;
    const child = store.workspace(request.params.ws);
    // Transfers are made on a sub-workspace: a root has no pool to draw from.
    const parent = child?.parentId ? store.workspace(child.parentId) : undefined;
    if (!child || !parent) return invalidAccess(reply);
    const now = ctx.now();
    if (!isReadyStatus(observeStatus(child, now, false))) return umError(reply, 422, WORKSPACE_NOT_READY);
    if (child.notReadyTransfers > 0) {
      // Live keeps refusing for a while even after the status reads `created`.
      child.notReadyTransfers -= 1;
      return umError(reply, 422, WORKSPACE_NOT_READY);
    }
    const plan = planTransfer(child.resources, parent.resources, body.resources.ai);
    if (!plan.ok) return umError(reply, 422, INSUFFICIENT_UNITS);
    applyTransfer(child, parent, plan.deltas, now, ctx.settings.enforcementLagMs);
    return workspaceView(child, observeStatus(child, now, false), store.isMetered(child));
  });
}
