import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { ServiceError } from "../../domain/errors.ts";
import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { marketParams } from "../schemas/markets.ts";
import { promptPreviewBody, promptPreviewSchema } from "../schemas/promptPreview.ts";
import { errorResponses, UPSTREAM_READ, WITH_BODY } from "../schemas/routeErrors.ts";

/** Generated prompts for a market, for review before anything is written (spec/generation.md §8). */
export async function promptPreviewRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    "/v2/orgs/:orgId/brands/:brandId/serenity/markets/:geoTargetId/:languageCode/prompt-preview",
    {
      schema: {
        tags: ["markets"],
        summary: "Preview the prompts generation would write for a market (no write, no job, no quota)",
        description:
          "Fetches the market's seed topics, runs the generator and the validation pipeline synchronously and answers the prompts with the pipeline's counts. Nothing is written upstream, no job is created and the pool is not touched; the market need not exist yet. Accept the prompts by posting them to `…/serenity/prompts`. Past the generator timeout: 504 `generationTimeout`. Cost bounds: choosing `generator` is an admin's (a member gets 403 `forbidden`); a member's `count` is at most 50 (400); previews and generation jobs together count against the org's hourly generation rate (`SERENITY_GENERATION_RATE_PER_ORG`), past which a preview answers 429 `rateLimited` with `Retry-After`.",
        params: marketParams,
        body: promptPreviewBody,
        response: {
          200: promptPreviewSchema,
          ...errorResponses(
            "forbidden",
            "rateLimited",
            "notFound",
            "semrushProvisioningIncomplete",
            "workspaceMisconfigured",
            "generatorUnavailable",
            "generationTimeout",
            UPSTREAM_READ,
            WITH_BODY,
          ),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId, geoTargetId, languageCode } = request.params;
      try {
        return await services.promptPreview.preview(
          principalOf(request),
          orgId,
          brandId,
          { geoTargetId, languageCode },
          { count: request.body?.count, generator: request.body?.generator },
          { requestId: request.id },
        );
      } catch (error) {
        // The org's generation rate says when its window ends (the registry's floor is 1 s).
        const seconds = error instanceof ServiceError ? error.details?.retryAfterSeconds : undefined;
        if (typeof seconds === "number") void reply.header("retry-after", String(seconds));
        throw error;
      }
    },
  );
}
