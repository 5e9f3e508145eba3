import type { App, AppOptions } from "../../src/api/app.ts";
import { buildApp } from "../../src/api/app.ts";
import { hs256Verifier, signDevToken } from "../../src/auth/tokenVerifier.ts";
import type { ApiRateLimitSettings } from "../../src/config/env.ts";
import { type Clock, systemClock } from "../../src/domain/clock.ts";
import type { MeteredWriteGuardFactory } from "../../src/domain/meteredWrites.ts";
import type { UpstreamBudget } from "../../src/gateway/budgetPort.ts";
import { createGatewayClient, type GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { JobWorker } from "../../src/jobs/worker.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger, type Logger } from "../../src/observability/logger.ts";
import { createMetrics } from "../../src/observability/metrics.ts";
import type { PoolRefreshPacing } from "../../src/poolView/poolViews.ts";
import { apiRateLimitsOf } from "../../src/runtime/apiRateLimitStore.ts";
import { createServices, type Services } from "../../src/runtime/services.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { LogCapture } from "./logCapture.ts";

export const TEST_AUTH_SECRET = "test-secret-that-is-long-enough-0123456789";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read loosely in assertions
export interface Answer<T = any> {
  status: number;
  body: T;
  raw: string;
}

/**
 * One route call through the app (no network), its body parsed. Every body is kept in `record`,
 * for a suite's leak scan; `drive` lets a world run the call its way (a ManualClock pumped while
 * the code under test sleeps on it).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read loosely in assertions
export async function callRoute<T = any>(
  app: App,
  request: { method: string; url: string; token: string; body?: unknown },
  options: { record?: string[]; drive?: <R>(work: Promise<R>) => Promise<R> } = {},
): Promise<Answer<T>> {
  const sent = app.inject({
    method: request.method as "GET",
    url: request.url,
    headers: { authorization: `Bearer ${request.token}` },
    ...(request.body === undefined ? {} : { payload: request.body as object }),
  });
  const response = await (options.drive ? options.drive(sent) : sent);
  options.record?.push(response.body);
  return {
    status: response.statusCode,
    body: (response.body ? response.json() : undefined) as T,
    raw: response.body,
  };
}

/**
 * A job worker on the app's own job system (registry, queue, credential store), driven by hand:
 * no LISTEN, no reconciler timer.
 */
export function workerOf(t: TestApp, logger: Logger): JobWorker {
  const jobs = t.services.jobs;
  return new JobWorker(
    {
      db: t.db.db,
      clock: systemClock,
      logger,
      events: t.events,
      registry: jobs.registry,
      queue: jobs.queue,
      credentials: jobs.credentials,
    },
    { listen: false, reconcileIntervalMs: 0 },
  );
}

export interface TestApp {
  app: App;
  db: TestDatabase;
  services: Services;
  /** The real gateway client the services use (when `gateway` was given). */
  gateway: GatewayClient | undefined;
  events: EventBus;
  logs: LogCapture;
  token(claims: { sub?: string; orgs?: string[]; admin?: boolean; ttlSeconds?: number }): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  db?: TestDatabase;
  /**
   * Points the real gateway client at this origin (a test simulator); `maxRetries` defaults to 2;
   * `budget` = the shared upstream budget (ADR 0019), none (unlimited) by default.
   */
  gateway?: { url: string; maxRetries?: number; budget?: UpstreamBudget };
  /** The metered-write seam; defaults to the passthrough (allocation off). */
  meteredWrites?: MeteredWriteGuardFactory;
  /** HTTP options of the app (short request timeouts). */
  http?: AppOptions;
  /** Generation's per-use settings (flag, generator variables); default process.env. */
  generationEnv?: Record<string, string | undefined>;
  /** The operator settings' cache; tests that flip a setting use 0. */
  settingsCacheMs?: number;
  /** How the pool view's background refresh spreads its reads (default: the production pacing). */
  poolRefreshPacing?: Partial<PoolRefreshPacing>;
  /** Origins a browser UI may call from (SERENITY_CORS_ORIGINS); none by default. */
  corsOrigins?: string[];
  /** The API's request limits, wired as `serve` wires them (PostgreSQL, or Redis with `redisUrl`). */
  rateLimits?: ApiRateLimitSettings;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase());
  const logs = new LogCapture();
  const logger = createLogger({ level: "debug", destination: logs });
  const events = new EventBus();
  const metrics = createMetrics(events);
  const clock = options.clock ?? systemClock;
  const gateway = options.gateway
    ? createGatewayClient({
        projectsBaseUrl: options.gateway.url,
        usersBaseUrl: options.gateway.url,
        events,
        logger,
        clock,
        maxRetries: options.gateway.maxRetries,
        ...(options.gateway.budget ? { budget: options.gateway.budget } : {}),
      })
    : undefined;
  const services = createServices({
    db: db.db,
    clock,
    events,
    logger,
    gateway,
    meteredWrites: options.meteredWrites,
    generationEnv: options.generationEnv,
    settingsCacheMs: options.settingsCacheMs,
    poolRefreshPacing: options.poolRefreshPacing,
  });
  // As openRuntime does at boot: an enqueue never starts the queue.
  await services.jobs.queue.start();
  const rateLimits = options.rateLimits
    ? apiRateLimitsOf(options.rateLimits, db.db, logger, clock)
    : undefined;
  const app = await buildApp(
    {
      logger,
      clock,
      events,
      metrics,
      verifier: hs256Verifier(TEST_AUTH_SECRET),
      services,
      readiness: async () => ({ ready: true, checks: { database: true } }),
      ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
      ...(rateLimits?.limits ? { rateLimits: rateLimits.limits } : {}),
    },
    options.http,
  );
  await app.ready();
  // Every suite on this app holds the routes' declared error codes (docs/openapi.json): an answer
  // with a code its route does not declare fails the suite at close.
  const undeclared: string[] = [];
  events.on("http.undeclaredErrorCode", ({ method, route, status, code }) =>
    undeclared.push(`${method} ${route} answered ${status} ${code}`),
  );
  return {
    app,
    db,
    services,
    gateway,
    events,
    logs,
    token: (claims) =>
      signDevToken(TEST_AUTH_SECRET, {
        sub: claims.sub ?? "user-1",
        orgs: claims.orgs,
        admin: claims.admin,
        ttlSeconds: claims.ttlSeconds,
      }),
    close: async () => {
      await app.close();
      await rateLimits?.close();
      await services.poolView.settled();
      await gateway?.close();
      if (!options.db) await db.destroy();
      if (undeclared.length > 0) {
        throw new Error(
          `Error codes the routes do not declare (add them to the route's errorResponses): ${[...new Set(undeclared)].join("; ")}`,
        );
      }
    },
  };
}
