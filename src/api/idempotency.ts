import type { FastifyInstance } from "fastify";
import { z } from "zod";

import { canAccessOrg } from "../auth/principal.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { IDEMPOTENCY_KEY_PATTERN, requestFingerprint } from "../domain/idempotency.ts";
import { currentUpstreamScope, INTERACTIVE_EDGE_BUDGET_MS } from "../gateway/upstreamScope.ts";
import type { IdempotencyService, IdempotencyTicket } from "../idempotency/idempotencyService.ts";
import { principalOf } from "./authentication.ts";

declare module "fastify" {
  interface FastifyRequest {
    idempotencyTicket?: IdempotencyTicket;
  }
  interface FastifyContextConfig {
    /** A create that honours `Idempotency-Key` (docs/decisions/0022). */
    idempotent?: boolean;
  }
}

/** The header a create accepts, as the OpenAPI document shows it (other headers pass through). */
export const idempotencyHeaders = z.looseObject({
  "idempotency-key": z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, "must be 1 to 255 visible ASCII characters")
    .optional()
    .describe(
      "Makes the create safe to retry: a repeat with the same key and the same request within 24 h answers what the first answered (header `Idempotent-Replayed: true`) and does nothing again; a repeat while the first still runs waits for it (409 `idempotencyKeyInProgress` if it outlasts the edge budget); the same key with another request is 422 `idempotencyKeyReused`. A UUID per logical create is the usual choice.",
    ),
});

/**
 * `Idempotency-Key` on the routes marked `idempotent`: before the handler, the key is taken (or the
 * stored answer replayed, or the repeat waits within the request's edge budget); once answered, the
 * answer is stored under the key. Keys are per caller, per org, per route.
 */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyService, clock: Clock): void {
  app.addHook("preHandler", async (request, reply) => {
    if (!request.routeOptions.config?.idempotent) return;
    const key = request.headers["idempotency-key"];
    if (key === undefined) return;
    if (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ServiceError("invalidRequest", {
        message: "Idempotency-Key must be 1 to 255 visible ASCII characters.",
      });
    }
    const params = (request.params ?? {}) as Record<string, unknown>;
    const route = `${request.method} ${request.routeOptions.url ?? ""}`;
    const scope = {
      orgId: typeof params.orgId === "string" ? params.orgId : "",
      principal: principalOf(request).sub,
      route,
      key,
    };
    const fingerprint = requestFingerprint(route, {
      params,
      query: request.query ?? {},
      body: request.body ?? null,
    });
    const deadlineAt = currentUpstreamScope()?.deadlineAt;
    const waitMs =
      deadlineAt !== undefined && Number.isFinite(deadlineAt)
        ? deadlineAt - clock.now().getTime()
        : INTERACTIVE_EDGE_BUDGET_MS;
    const started = await service.start(scope, fingerprint, waitMs);
    if (started.kind === "replay") {
      // A stored answer is the org's data: a caller who lost access to the org since gets the 404
      // any other route under it answers, never the replay.
      const principal = principalOf(request);
      if (scope.orgId !== "" && !canAccessOrg(principal, scope.orgId)) throw new ServiceError("notFound");
      request.log.info({ route }, "idempotent repeat answered from its first answer");
      // A replayed 202 names the same job to poll, in its header as in its body.
      const location = (started.body as { job?: { location?: unknown } } | null)?.job?.location;
      if (started.status === 202 && typeof location === "string") void reply.header("location", location);
      return reply.code(started.status).header("idempotent-replayed", "true").send(started.body);
    }
    request.idempotencyTicket = started.ticket;
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const ticket = request.idempotencyTicket;
    if (!ticket) return payload;
    request.idempotencyTicket = undefined;
    try {
      // An answer that says when to come back (a 207 whose items met a spent upstream budget or
      // a busy lease) is not the request's outcome: the key is freed, so the retry it asks for
      // runs again instead of replaying the refusal. Items it did write come back as existing.
      if (reply.getHeader("retry-after") !== undefined) await service.abandon(ticket);
      else await service.finish(ticket, reply.statusCode, parsedBody(payload));
    } catch (error) {
      // The answer still goes out; the key stays in progress until its lease runs out.
      request.log.error({ err: error }, "could not store the answer of an idempotent request");
    }
    return payload;
  });
}

function parsedBody(payload: unknown): unknown {
  if (typeof payload !== "string") return null;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return null;
  }
}
