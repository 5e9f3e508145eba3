import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { systemClock } from "../../domain/clock.ts";
import type { AppDeps } from "../appDeps.ts";
import { errorResponses } from "../schemas/routeErrors.ts";
import { upstreamHealthSchema } from "../schemas/upstreamHealth.ts";

interface Observed {
  reachable: boolean;
  checkedAt: Date;
  since: Date;
}

/**
 * The upstream's health as this process last probed it (the `serenity_gateway_reachable` gauge's
 * source, src/runtime/upstreamHealth.ts), for the console: any signed-in caller may read it, it
 * names no org and no upstream detail. Never part of /readyz.
 */
export async function upstreamHealthRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const clock = deps.clock ?? systemClock;
  let observed: Observed | undefined;
  const unsubscribe = deps.events.on("gateway.health", ({ reachable }) => {
    const now = clock.now();
    observed = {
      reachable,
      checkedAt: now,
      since: observed && observed.reachable === reachable ? observed.since : now,
    };
  });
  app.addHook("onClose", async () => unsubscribe());

  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    "/v2/serenity/upstream-health",
    {
      schema: {
        tags: ["operations"],
        summary: "Whether the Semrush gateway answers this API process (its last 30 s probe)",
        response: { 200: upstreamHealthSchema, ...errorResponses() },
      },
    },
    async () => ({
      reachable: observed?.reachable ?? null,
      checkedAt: observed?.checkedAt.toISOString() ?? null,
      since: observed?.since.toISOString() ?? null,
    }),
  );
}
