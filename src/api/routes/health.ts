import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";

import type { AppDeps } from "../appDeps.ts";

export async function healthRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    "/healthz",
    {
      config: { public: true },
      schema: {
        tags: ["operations"],
        summary: "Process is up",
        security: [],
        response: { 200: z.object({ status: z.literal("ok") }) },
      },
    },
    async () => ({ status: "ok" as const }),
  );
  typed.get(
    "/readyz",
    {
      config: { public: true },
      schema: {
        tags: ["operations"],
        summary:
          "This process can serve: the database answers and every migration is applied (not the upstream)",
        security: [],
        response: {
          200: z.object({ status: z.literal("ready"), checks: z.record(z.string(), z.boolean()) }),
          503: z.object({ status: z.literal("not ready"), checks: z.record(z.string(), z.boolean()) }),
        },
      },
    },
    async (_request, reply) => {
      const report = await deps.readiness();
      return report.ready
        ? reply.status(200).send({ status: "ready" as const, checks: report.checks })
        : reply.status(503).send({ status: "not ready" as const, checks: report.checks });
    },
  );
  // Apart from the API when SERENITY_METRICS_PORT is set: the gauges name org ids.
  if (deps.metricsOnApiPort === false) return;
  app.get("/metrics", { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    reply.header("content-type", deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}
