import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * CORS for a browser UI on another origin (spec/api.md §6, docs/decisions/0037). The allowed
 * origins are configured (`SERENITY_CORS_ORIGINS`; none by default, so nothing changes for a
 * deployment that does not set it; `*` only outside production mode).
 *
 * - Every `OPTIONS` request is answered here, before authentication and before routing: a
 *   preflight carries no token, so it must never be 401 (nor 404). An allowed origin gets the
 *   methods and request headers the API reads; any other origin gets a 204 without CORS headers,
 *   which the browser treats as a refusal.
 * - An actual request from an allowed origin gets `Access-Control-Allow-Origin` (its own origin,
 *   with `Vary: Origin`) and the response headers a client reads exposed: on successes and on
 *   errors alike, since the hook runs before anything can fail.
 * - No `Access-Control-Allow-Credentials`: the API authenticates with a bearer header, never with
 *   cookies, so a page must send its token explicitly and no ambient credential is ever usable.
 */
export const CORS_ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE";
export const CORS_ALLOWED_HEADERS =
  "authorization, content-type, idempotency-key, x-request-id, traceparent, tracestate";
export const CORS_EXPOSED_HEADERS = [
  "x-request-id",
  "retry-after",
  "idempotent-replayed",
  "location",
  "ratelimit",
  "ratelimit-policy",
].join(", ");
/** How long a browser may reuse a preflight's answer (seconds). */
export const CORS_MAX_AGE_SECONDS = 600;

/** The configured origins: exact `scheme://host[:port]` origins, or `["*"]` for any (not in production). */
export type CorsOrigins = readonly string[];

function allowedOrigin(origins: CorsOrigins, request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin !== "string" || origin === "" || origin === "null") return undefined;
  if (origins.includes("*") || origins.includes(origin)) return origin;
  return undefined;
}

function varyOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader("vary");
  const current = typeof vary === "string" ? vary : "";
  if (!/\borigin\b/i.test(current)) void reply.header("vary", current ? `${current}, Origin` : "Origin");
}

export function registerCors(app: FastifyInstance, origins: CorsOrigins): void {
  app.addHook("onRequest", async (request, reply) => {
    const origin = allowedOrigin(origins, request);
    if (origin) varyOrigin(reply);
    if (request.method === "OPTIONS") {
      if (origin && request.headers["access-control-request-method"]) {
        void reply.headers({
          "access-control-allow-origin": origin,
          "access-control-allow-methods": CORS_ALLOWED_METHODS,
          "access-control-allow-headers": CORS_ALLOWED_HEADERS,
          "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
        });
      }
      void reply.header("allow", `${CORS_ALLOWED_METHODS}, OPTIONS`);
      return reply.code(204).send();
    }
    if (origin) {
      void reply.headers({
        "access-control-allow-origin": origin,
        "access-control-expose-headers": CORS_EXPOSED_HEADERS,
      });
    }
  });
}
