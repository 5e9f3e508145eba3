import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { accepted } from "../accepted.ts";
import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { generationJobAccepted, generationJobSchema } from "../schemas/generationJobs.ts";
import { jobParams } from "../schemas/jobs.ts";
import { errorResponses, WITH_BODY } from "../schemas/routeErrors.ts";
import { jobView } from "../views/jobView.ts";

const GENERATION_JOBS = "/v2/orgs/:orgId/brands/:brandId/serenity/markets/generation/jobs/:jobId";

/** Poll and re-authentication of a market's prompt generation (spec/generation.md §5). */
export async function generationJobRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    GENERATION_JOBS,
    {
      schema: {
        tags: ["markets"],
        summary: "Poll a market's prompt generation",
        description:
          "Only generation jobs answer here: a job of another type is 404, like one of another brand.",
        params: jobParams,
        response: { 200: generationJobSchema, ...errorResponses("notFound") },
      },
    },
    async (request) => {
      const { orgId, brandId, jobId } = request.params;
      const job = await services.generation.jobs.get(principalOf(request), orgId, brandId, jobId);
      return {
        ...jobView(job),
        type: "generateSemrushMarket" as const,
        jobType: "generateSemrushMarket" as const,
        result: job.result,
      };
    },
  );

  typed.post(
    `${GENERATION_JOBS}/reauth`,
    {
      schema: {
        tags: ["markets"],
        operationId: "reauthGenerationJob",
        summary: "Resume a prompt generation that needs re-authentication",
        description:
          "Only the user who started it (else 403), only when it FAILED with NEEDS_REAUTH (else 409 invalidState): seals the caller's bearer, then resumes the same job from its checkpoints (no second generation).",
        params: jobParams,
        response: {
          202: generationJobAccepted,
          ...errorResponses("forbidden", "notFound", "invalidState", WITH_BODY),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId, jobId } = request.params;
      const resumed = await services.generation.jobs.reauth(principalOf(request), orgId, brandId, jobId);
      const jobType = "generateSemrushMarket" as const;
      const { job } = accepted(reply, { family: "generation", orgId, brandId, jobId, jobType });
      return reply.send({ ...resumed, jobType, job });
    },
  );
}
