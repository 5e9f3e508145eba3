import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { orgParams } from "../schemas/common.ts";
import { poolHistoryQuery, poolHistorySchema, poolSummariesSchema } from "../schemas/poolHistory.ts";
import { errorResponses } from "../schemas/routeErrors.ts";
import { poolHistoryView, poolSummariesView } from "../views/poolHistoryView.ts";

/** The pool over time (recorded samples: no upstream call on these routes). */
export async function poolHistoryRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    "/v2/orgs/:orgId/serenity/pool-history",
    {
      schema: {
        tags: ["allocation"],
        summary: "The org's pool over time",
        params: orgParams,
        querystring: poolHistoryQuery,
        response: { 200: poolHistorySchema, ...errorResponses("notFound") },
      },
    },
    async (request) =>
      poolHistoryView(
        await services.poolHistory.list(principalOf(request), request.params.orgId, request.query),
      ),
  );

  typed.get(
    "/v2/serenity/pool-summaries",
    {
      schema: {
        tags: ["allocation"],
        summary: "The newest pool sample of every org the caller may access",
        response: { 200: poolSummariesSchema, ...errorResponses() },
      },
    },
    async (request) => poolSummariesView(await services.poolHistory.latest(principalOf(request))),
  );
}
