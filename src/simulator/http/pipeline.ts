import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

import { type EndpointGroup, endpointGroupOf } from "../../domain/endpointGroup.ts";
import type { SimContext } from "../context.ts";
import type { FaultAction } from "./faults.ts";
import { bearerHash } from "./requestLimiter.ts";
import {
  APPLICATION_JSON,
  gatewayError,
  gatewayOf,
  invalidAccess,
  methodNotAllowed,
  NGINX_504_PAGE,
  notAuthenticated,
  TEXT_HTML,
  TEXT_PLAIN,
  tooManyRequests,
} from "./responses.ts";
import { bearerOf } from "./tokens.ts";

export const CONTROL_PREFIX = "/__sim";

interface CallState {
  method: string;
  path: string;
  bearer: string | undefined;
  afterCommit504: boolean;
  recorded: boolean;
  group: EndpointGroup | null;
  throttled: boolean;
  receivedAt: string;
  host: string;
  /** The presented bearer's hash (requestLimiter.ts `bearerHash`), computed once per call. */
  account: string | undefined;
}

export function pathOf(url: string): string {
  const index = url.indexOf("?");
  return index === -1 ? url : url.slice(0, index);
}

function sendFault(reply: FastifyReply, action: FaultAction & { status: number }): FastifyReply {
  const { body } = action;
  const payload = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  const type =
    action.contentType ?? (body === undefined || typeof body === "string" ? TEXT_PLAIN : APPLICATION_JSON);
  // A rate limit without a hint would leave the client guessing; live sends one.
  if (action.status === 429) reply.header("retry-after", "1");
  return reply.code(action.status).type(type).send(payload);
}

/**
 * The request pipeline in front of every gateway route: the request limits (429), latency, fault
 * rules, bearer presence and revocation (401), token ownership (403), the 504-after-commit rewrite,
 * the call log, and the JSON 405 for a wrong method on a known path. Control routes bypass all of it.
 *
 * The limits come first, on arrival: a throttled call is answered at once and has no effect at all
 * (no latency, no fault rule spent, no state read or written). An admitted call is in flight from
 * arrival until its answer is sent or its connection closes, so the simulator's own latency and
 * fault delays count as time in flight. Calls without a bearer have no account to count against.
 */
export function installPipeline(app: FastifyInstance, ctx: SimContext): void {
  const states = new WeakMap<FastifyRequest, CallState>();
  const routePatterns: RegExp[] = [];

  app.addHook("onRoute", (route) => {
    if (!gatewayOf(route.url)) return;
    const pattern = route.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+");
    routePatterns.push(new RegExp(`^${pattern}/?$`));
  });

  app.addHook("onRequest", async (request, reply) => {
    const path = pathOf(request.url);
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) return;
    const gateway = gatewayOf(path);
    const state: CallState = {
      method: request.method,
      path,
      bearer: undefined,
      afterCommit504: false,
      recorded: false,
      group: gateway ? endpointGroupOf(gateway, path) : null,
      throttled: false,
      receivedAt: new Date(ctx.now()).toISOString(),
      host: request.headers.host ?? "",
      account: undefined,
    };
    states.set(request, state);

    const presented = bearerOf(request.headers.authorization);
    if (presented) state.account = bearerHash(presented);
    if (presented && state.group) {
      const release = ctx.limiter.tryStart(presented, state.group, ctx.now(), ctx.settings.rateLimit);
      if (!release) {
        state.throttled = true;
        return tooManyRequests(reply);
      }
      // `close` follows the answer's last byte, and also a dropped or aborted connection.
      reply.raw.once("close", release);
    }

    if (ctx.settings.latencyMs > 0) await ctx.sleep(ctx.settings.latencyMs);
    const fault = ctx.faults.take(request.method, path, ctx.random);
    if (fault) {
      if (fault.delayMs) await ctx.sleep(fault.delayMs);
      if (fault.dropConnection) {
        state.recorded = true;
        ctx.calls.record({
          method: state.method,
          path,
          status: 0,
          at: new Date(ctx.now()).toISOString(),
          group: state.group,
          throttled: false,
          receivedAt: state.receivedAt,
          host: state.host,
          ...(state.account ? { account: state.account } : {}),
        });
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      }
      if (fault.afterCommit504) state.afterCommit504 = true;
      else if (fault.status !== undefined) return sendFault(reply, { ...fault, status: fault.status });
    }

    if (!presented || ctx.tokens.isRevoked(presented)) return notAuthenticated(reply);
    state.bearer = presented;
  });

  app.addHook("preHandler", async (request, reply) => {
    const state = states.get(request);
    if (!state?.bearer) return;
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const workspaceId = params.ws ?? params.parent;
    if (workspaceId && !ctx.tokens.allows(ctx.store, state.bearer, workspaceId)) {
      return invalidAccess(reply);
    }
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const state = states.get(request);
    // The write committed; the gateway still times out in front of it.
    if (state?.afterCommit504 && reply.statusCode < 300) {
      reply.code(504).type(TEXT_HTML);
      return NGINX_504_PAGE;
    }
    return payload;
  });

  app.addHook("onResponse", async (request, reply) => {
    const state = states.get(request);
    if (!state || state.recorded) return;
    state.recorded = true;
    ctx.calls.record({
      method: state.method,
      path: state.path,
      status: reply.statusCode,
      at: new Date(ctx.now()).toISOString(),
      group: state.group,
      throttled: state.throttled,
      receivedAt: state.receivedAt,
      host: state.host,
      ...(state.account ? { account: state.account } : {}),
    });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    if (routePatterns.some((pattern) => pattern.test(path))) return methodNotAllowed(reply);
    const gateway = gatewayOf(path);
    if (gateway === "pe") return gatewayError(reply, "pe", 404, "not found");
    return reply
      .code(404)
      .type(APPLICATION_JSON)
      .send(JSON.stringify({ detail: "Not Found" }));
  });

  app.setErrorHandler((error, request, reply) => {
    const statusCode = (error as { statusCode?: unknown }).statusCode;
    const status = typeof statusCode === "number" && statusCode < 500 ? statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, "simulator route failed");
    const message = status >= 500 ? "Internal Server Error" : "invalid request";
    return gatewayError(reply, gatewayOf(pathOf(request.url)) ?? "um", status, message);
  });

  // Bodies: JSON, tolerant of an empty body (publish and deletes are often sent without one).
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Object.assign(new Error("invalid JSON body"), { statusCode: 400 }), undefined);
    }
  });
}
