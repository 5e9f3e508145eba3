import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { orgParams } from "../schemas/common.ts";
import { jobListPageSchema, jobListQuery, jobTimelineSchema, orgJobParams } from "../schemas/jobList.ts";
import { errorResponses } from "../schemas/routeErrors.ts";
import { jobListPageView, jobTimelineView } from "../views/jobListView.ts";

/** An org's jobs and one job's requeue/chain lineage (the console's Jobs page). */
export async function jobListRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    "/v2/orgs/:orgId/serenity/jobs",
    {
      schema: {
        tags: ["jobs"],
        summary: "An org's jobs, newest first",
        description:
          "One item per job a client was given (requeue and chain successors are its hops); `status` is what its poll reports. Filter by status, public type or brand; page with `cursor`.",
        params: orgParams,
        querystring: jobListQuery,
        response: { 200: jobListPageSchema, ...errorResponses("notFound") },
      },
    },
    async (request) =>
      jobListPageView(
        await services.jobListing.list(principalOf(request), request.params.orgId, request.query),
      ),
  );

  typed.get(
    "/v2/orgs/:orgId/serenity/jobs/:jobId/timeline",
    {
      schema: {
        tags: ["jobs"],
        operationId: "getJobTimeline",
        summary: "A job's requeue/chain lineage as a timeline",
        description:
          "The job (as in the list) and each of its hops, oldest first: how it came to be (start, requeue or chain), when, and its outcome. `jobId` may name the job or any of its hops.",
        params: orgJobParams,
        response: { 200: jobTimelineSchema, ...errorResponses("notFound") },
      },
    },
    async (request) => {
      const { orgId, jobId } = request.params;
      return jobTimelineView(await services.jobListing.timeline(principalOf(request), orgId, jobId));
    },
  );
}
