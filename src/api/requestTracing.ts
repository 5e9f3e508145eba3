import type { FastifyInstance, FastifyRequest } from "fastify";

import { type RequestSpan, startRequestSpan } from "../observability/tracing.ts";

/**
 * A server span per request, named by its route template, active for the rest of the request so
 * the upstream calls it makes and the jobs it enqueues join its trace. With tracing off the span is
 * the API's no-op one.
 */
export function registerRequestTracing(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, RequestSpan>();
  app.addHook("onRequest", (request, _reply, done) => {
    const span = startRequestSpan({
      method: request.method,
      route: request.routeOptions.url ?? "unmatched",
      headers: request.headers,
      requestId: request.id,
    });
    spans.set(request, span);
    span.run(done);
  });
  app.addHook("onResponse", async (request, reply) => {
    spans.get(request)?.end(reply.statusCode);
  });
  app.addHook("onRequestAbort", async (request) => {
    spans.get(request)?.end(499);
  });
}
