import { type App, buildApp } from "../api/app.ts";
import { apiRateLimitsOf } from "./apiRateLimitStore.ts";
import type { Runtime } from "./runtime.ts";
import { createVerifier } from "./verifier.ts";

/**
 * Builds the API for a runtime. Readiness is "this process can serve": the database answers and
 * every committed migration is applied. The upstream is not part of it (an outage must not take
 * every pod out of rotation); its health is the `serenity_gateway_reachable` gauge
 * (src/runtime/upstreamHealth.ts).
 */
export async function createApiApp(runtime: Runtime): Promise<App> {
  const rateLimits = apiRateLimitsOf(
    runtime.config.apiRateLimits,
    runtime.database.db,
    runtime.logger,
    runtime.clock,
  );
  const app = await buildApp({
    logger: runtime.logger,
    clock: runtime.clock,
    events: runtime.events,
    metrics: runtime.metrics,
    verifier: await createVerifier(runtime.config),
    services: runtime.services,
    readiness: runtime.readiness.check,
    metricsOnApiPort: runtime.config.metricsPort === undefined,
    corsOrigins: runtime.config.corsOrigins,
    ...(rateLimits.limits ? { rateLimits: rateLimits.limits } : {}),
  });
  app.addHook("onClose", () => rateLimits.close());
  return app;
}

export async function listen(app: App, port: number, host: string): Promise<string> {
  await app.listen({ port, host });
  const address = app.server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return `http://${shownHost}:${actualPort}`;
}
