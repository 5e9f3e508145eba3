import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from "fastify";
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from "fastify-type-provider-zod";

import { systemClock } from "../domain/clock.ts";
import { ERROR_REGISTRY } from "../domain/errors.ts";
import { INTERACTIVE_EDGE_BUDGET_MS, withUpstreamPriority } from "../gateway/upstreamScope.ts";
import type { AppDeps } from "./appDeps.ts";
import { authenticationHook } from "./authentication.ts";
import { consoleRoutes } from "./console/consoleRoutes.ts";
import { registerCors } from "./cors.ts";
import { mapError } from "./errorMapping.ts";
import { registerIdempotency } from "./idempotency.ts";
import { registerJsonBodyParser } from "./jsonBody.ts";
import { finishDocument } from "./openApiDocument.ts";
import { openApiInfo } from "./openApiInfo.ts";
import { sendProblem } from "./problem.ts";
import { registerApiRateLimits } from "./rateLimits.ts";
import { requestIdFor } from "./requestId.ts";
import { noteAnsweredCode, OneLineRequestLog } from "./requestLog.ts";
import { registerRequestTracing } from "./requestTracing.ts";
import { registerRoutes } from "./routes/index.ts";
import { reportUndeclared } from "./undeclaredErrors.ts";

export type App = FastifyInstance;

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * How long a client may take to send a request: its headers, then the whole request with its body
 * (a slow-body "slowloris" socket is answered 408 and closed). Node checks these every second.
 * Without them Fastify waits forever on an incomplete body (docs/decisions/0008 addendum).
 */
export const HTTP_TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 } as const;

export interface AppOptions {
  /** Overrides of HTTP_TIMEOUTS (tests use short ones). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** Builds the HTTP app without listening, so tests drive it with `inject()`. */
export async function buildApp(deps: AppDeps, options: AppOptions = {}): Promise<App> {
  const requestTimeout = options.requestTimeoutMs ?? HTTP_TIMEOUTS.requestTimeoutMs;
  const app: FastifyInstance = Fastify({
    requestTimeout,
    http: {
      headersTimeout: Math.min(options.headersTimeoutMs ?? HTTP_TIMEOUTS.headersTimeoutMs, requestTimeout),
      connectionsCheckingInterval: 1_000,
    },
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    logController: new OneLineRequestLog(),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    // Errors the router raises before any hook (a malformed URL, an overlong path parameter) get
    // the same envelope as every other error, instead of Fastify's default body echoing the URL.
    frameworkErrors: (error, request, reply) => {
      const mapped = mapError(error);
      noteAnsweredCode(request, mapped.code);
      request.log.debug({ err: error, code: mapped.code }, "request rejected by the router");
      // The router rejected the request before a route (and its reply typing) was chosen.
      void sendProblem(request, reply as FastifyReply, mapped);
    },
  });

  registerJsonBodyParser(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Hooks and the error handler come first: plugins registered later inherit them.
  app.addHook("onRoute", (route) => {
    // Swagger UI's pages and assets are public.
    if (route.url === "/docs" || route.url.startsWith("/docs/"))
      route.config = { ...(route.config ?? {}), public: true };
  });
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  // Preflights are answered here, before authentication: an OPTIONS request is never 401 (ADR 0037).
  registerCors(app, deps.corsOrigins ?? []);
  registerRequestTracing(app);
  // Every upstream call a request makes is interactive and waits for budget within the request's
  // edge budget (ADR 0019): the rest of the request runs inside this scope.
  const clock = deps.clock ?? systemClock;
  app.addHook("onRequest", (_request, _reply, done) => {
    withUpstreamPriority("interactive", clock.now().getTime(), INTERACTIVE_EDGE_BUDGET_MS, done);
  });
  app.addHook("preValidation", authenticationHook(deps.verifier));
  // Limits count after authentication and before an idempotent create is looked up or replayed.
  if (deps.rateLimits) await registerApiRateLimits(app, deps.rateLimits);
  registerIdempotency(app, deps.services.idempotency, clock);
  app.addHook("onResponse", async (request, reply) => {
    deps.events.emit("http.request", {
      method: request.method,
      route: request.routeOptions.url ?? "unmatched",
      status: reply.statusCode,
      durationSeconds: reply.elapsedTime / 1000,
    });
  });
  app.setErrorHandler((error, request, reply) => {
    const mapped = mapError(error);
    const details = (error as { details?: unknown }).details;
    const logContext = { err: error, code: mapped.code, status: mapped.status, details };
    noteAnsweredCode(request, mapped.code);
    // A 4xx is the request's own fault: its code is on the request's one line, the details at debug.
    if (mapped.status >= 500) request.log.error(logContext, "request failed");
    else request.log.debug(logContext, "request rejected");
    reportUndeclared(deps.events, request, mapped.status, mapped.code);
    // A busy lease or lock clears within seconds: the problem says when to come back (ADR 0015).
    return sendProblem(request, reply, mapped);
  });
  app.setNotFoundHandler({ preValidation: authenticationHook(deps.verifier) }, (request, reply) => {
    noteAnsweredCode(request, "notFound");
    return sendProblem(request, reply, {
      status: 404,
      code: "notFound",
      message: ERROR_REGISTRY.notFound.message,
    });
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: openApiInfo(),
      // Paths are relative to the origin serving the document (each deployment has its own).
      servers: [{ url: "/", description: "The origin this document is served from" }],
      components: {
        securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
    // The last pass: problem responses, open response schemas, documented headers (ADR 0037).
    transformObject: (input) => finishDocument(jsonSchemaTransformObject(input) as Record<string, unknown>),
  });
  await app.register(swaggerUi, { routePrefix: "/docs", uiConfig: { docExpansion: "list" } });

  app.get("/openapi.json", { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  await registerRoutes(app, deps);
  // The operator console: `/` and `/console/…` (public pages; the data comes from the API above).
  await consoleRoutes(app);
  return app;
}
