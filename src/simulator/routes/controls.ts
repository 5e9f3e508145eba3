import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";

import type { SimContext } from "../context.ts";
import type { SimulatorDump } from "../dump.ts";
import { faultRuleSchema } from "../http/faults.ts";
import type { RateLimit, RateReport } from "../http/requestLimiter.ts";
import { settingsPatchSchema, type SimulatorSettings } from "../settings.ts";
import { newWorkspace } from "../store/simulatorStore.ts";
import { DIMENSIONS } from "../store/types.ts";

export interface ControlHandle {
  reset(): void;
  /** A seed name or a snapshot; throws on a malformed snapshot. */
  seed(input: unknown): void;
  dump(): SimulatorDump;
  updateSettings(patch: Partial<SimulatorSettings>): SimulatorSettings;
}

/** `GET /__sim/rate`: the simulator's own count of requests per (bearer hash, endpoint group). */
export interface RateSnapshot {
  /** When the counts started (ISO): the simulator's start, the last `DELETE /__sim/rate` or reset. */
  since: string;
  /** The limits in force now (settings `rateLimit`; 0 = none). */
  rateLimit: RateLimit;
  keys: RateReport[];
}

const units = z.union([
  z.number().int().min(0),
  z
    .object({
      total: z.number().int().min(0).optional(),
      used: z.number().int().min(0).optional(),
      drafted: z.number().int().min(0).optional(),
    })
    .strict(),
]);

const quotaBody = z
  .object({
    workspaceId: z.string().min(1),
    projects: units.optional(),
    prompts: units.optional(),
    metered: z.boolean().optional(),
  })
  .strict();

const statusBody = z
  .object({
    workspaceId: z.string().min(1).optional(),
    title: z.string().min(1).optional(),
    notReadyReads: z.number().int().min(0).optional(),
    status: z.string().min(1).optional(),
  })
  .strict()
  .refine((body) => (body.workspaceId === undefined) !== (body.title === undefined), {
    message: "exactly one of workspaceId or title",
  });

/** A new root workspace: another customer's parent with its own pool (metered unless told otherwise). */
const parentBody = z
  .object({
    title: z.string().min(1).max(200).optional(),
    metered: z.boolean().optional(),
    projects: z.number().int().min(0).optional(),
    prompts: z.number().int().min(0).optional(),
  })
  .strict();

const tokenBody = z.object({ token: z.string().min(1) }).strict();
const bindBody = z.object({ token: z.string().min(1), workspaceId: z.string().min(1) }).strict();

function parse<S extends z.ZodType>(schema: S, input: unknown, reply: FastifyReply): z.output<S> | undefined {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  void reply.code(400).send({ error: "invalidControl", issues: parsed.error.issues });
  return undefined;
}

/**
 * The `/__sim` control routes (spec/gateway.md §6): no auth, never recorded in the call log, and only
 * registered when the simulator is built with `controls: true`.
 */
export function registerControlRoutes(app: FastifyInstance, ctx: SimContext, handle: ControlHandle): void {
  const { store } = ctx;

  app.post("/__sim/reset", async () => {
    handle.reset();
    return { ok: true };
  });

  app.post("/__sim/seed", async (request, reply) => {
    try {
      handle.seed(request.body);
    } catch (error) {
      return reply.code(400).send({ error: "invalidSnapshot", message: (error as Error).message });
    }
    return { ok: true };
  });

  app.get("/__sim/dump", async () => handle.dump());

  app.post("/__sim/quota", async (request, reply) => {
    const body = parse(quotaBody, request.body, reply);
    if (!body) return reply;
    const workspace = store.workspace(body.workspaceId);
    if (!workspace) return reply.code(404).send({ error: "unknownWorkspace" });
    for (const dimension of DIMENSIONS) {
      const value = body[dimension];
      if (value === undefined) continue;
      const counts = workspace.resources[dimension];
      if (typeof value === "number") counts.total = value;
      else Object.assign(counts, value);
      workspace.enforcement[dimension] = null;
    }
    // Metering follows the root, so the switch is set there.
    if (body.metered !== undefined) store.rootOf(workspace).limitsEnabled = body.metered;
    return { ok: true };
  });

  app.post("/__sim/parents", async (request, reply) => {
    const body = parse(parentBody, request.body, reply);
    if (!body) return reply;
    const parent = newWorkspace({
      id: ctx.newId(),
      title: body.title ?? "Parent workspace",
      parentId: null,
      createdAt: ctx.now(),
      limitsEnabled: body.metered ?? true,
      resources: {
        projects: { used: 0, drafted: 0, total: body.projects ?? 13 },
        prompts: { used: 0, drafted: 0, total: body.prompts ?? 800 },
      },
    });
    store.workspaces.set(parent.id, parent);
    return reply.code(201).send({ id: parent.id });
  });

  app.post("/__sim/status", async (request, reply) => {
    const body = parse(statusBody, request.body, reply);
    if (!body) return reply;
    const rule = { status: body.status, notReadyReads: body.notReadyReads };
    const targets = body.workspaceId
      ? [store.workspace(body.workspaceId)].filter((workspace) => workspace !== undefined)
      : [...store.workspaces.values()].filter((workspace) => workspace.title === body.title);
    if (body.workspaceId && targets.length === 0) return reply.code(404).send({ error: "unknownWorkspace" });
    // A title rule also applies to workspaces created later with exactly that title.
    if (body.title) store.titleRules.set(body.title, rule);
    for (const workspace of targets) {
      if (rule.status !== undefined) workspace.status = rule.status;
      if (rule.notReadyReads !== undefined) {
        workspace.notReadyReads = rule.notReadyReads;
        workspace.settleUntil = 0;
      }
    }
    return { ok: true, matched: targets.length };
  });

  app.post("/__sim/faults", async (request, reply) => {
    const body = parse(faultRuleSchema, request.body, reply);
    if (!body) return reply;
    try {
      return reply.code(201).send({ id: ctx.faults.add(body) });
    } catch {
      return reply.code(400).send({ error: "invalidPathPattern" });
    }
  });

  app.delete("/__sim/faults", async (_request, reply) => {
    ctx.faults.clear();
    return reply.code(204).send();
  });

  app.delete<{ Params: { id: string } }>("/__sim/faults/:id", async (request, reply) => {
    return reply.code(ctx.faults.remove(request.params.id) ? 204 : 404).send();
  });

  app.post("/__sim/tokens/revoke", async (request, reply) => {
    const body = parse(tokenBody, request.body, reply);
    if (!body) return reply;
    ctx.tokens.revoke(body.token);
    return { ok: true };
  });

  app.post("/__sim/tokens/bind", async (request, reply) => {
    const body = parse(bindBody, request.body, reply);
    if (!body) return reply;
    ctx.tokens.bind(body.token, body.workspaceId);
    return { ok: true };
  });

  app.get("/__sim/calls", async () => ctx.calls.list());

  app.delete("/__sim/calls", async (_request, reply) => {
    ctx.calls.clear();
    return reply.code(204).send();
  });

  app.get("/__sim/rate", async (): Promise<RateSnapshot> => ({
    since: new Date(ctx.limiter.since).toISOString(),
    rateLimit: { ...ctx.settings.rateLimit },
    keys: ctx.limiter.report(),
  }));

  app.delete("/__sim/rate", async (_request, reply) => {
    ctx.limiter.clearCounts(ctx.now());
    return reply.code(204).send();
  });

  app.get("/__sim/settings", async () => ({ ...ctx.settings }));

  app.post("/__sim/settings", async (request, reply) => {
    const body = parse(settingsPatchSchema, request.body, reply);
    if (!body) return reply;
    return handle.updateSettings(body);
  });
}
