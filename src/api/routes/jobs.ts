import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { accepted } from "../accepted.ts";
import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { jobAccepted, jobParams, jobSchema } from "../schemas/jobs.ts";
import { errorResponses, WITH_BODY } from "../schemas/routeErrors.ts";
import { jobView } from "../views/jobView.ts";

/** Generic job polling and re-authentication (spec/api.md §3 "Jobs"). */
export async function jobRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    "/v2/orgs/:orgId/brands/:brandId/serenity/jobs/:jobId",
    {
      schema: {
        tags: ["jobs"],
        summary: "Poll a job",
        description:
          "For provisioning jobs, follows requeues and chains (at most 10 hops) and reports the effective last hop; IN_PROGRESS until the whole chain is done.",
        params: jobParams,
        response: { 200: jobSchema, ...errorResponses("notFound") },
      },
    },
    async (request) => {
      const { orgId, brandId, jobId } = request.params;
      return jobView(await services.jobs.getForBrand(principalOf(request), orgId, brandId, jobId));
    },
  );

  typed.post(
    "/v2/orgs/:orgId/brands/:brandId/serenity/jobs/:jobId/reauth",
    {
      schema: {
        tags: ["jobs"],
        summary: "Resume a job that needs re-authentication",
        description:
          "Only the user who started the job, only when it FAILED with NEEDS_REAUTH: seals the caller's bearer as the job's new credential and re-enqueues the same job id.",
        params: jobParams,
        response: { 202: jobAccepted, ...errorResponses("forbidden", "notFound", "invalidState", WITH_BODY) },
      },
    },
    async (request, reply) => {
      const { orgId, brandId, jobId } = request.params;
      const resumed = await services.jobs.reauth(principalOf(request), orgId, brandId, jobId);
      const { job } = accepted(reply, { family: "job", orgId, brandId, jobId, jobType: resumed.jobType });
      return reply.send({ ...resumed, job });
    },
  );
}
