import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { idempotencyHeaders } from "../idempotency.ts";
import { brandParams, noContent } from "../schemas/common.ts";
import {
  bulkPromptsBody,
  bulkPromptsResponse,
  deletePromptsBody,
  promptList,
  promptListQuery,
} from "../schemas/prompts.ts";
import {
  errorResponses,
  IDEMPOTENT,
  UPSTREAM_READ,
  UPSTREAM_WRITE,
  WITH_BODY,
} from "../schemas/routeErrors.ts";
import { bulkPromptsView } from "../views/bulkPromptsView.ts";

const PROMPTS = "/v2/orgs/:orgId/brands/:brandId/serenity/prompts";

export async function promptRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    PROMPTS,
    {
      config: { idempotent: true },
      schema: {
        tags: ["prompts"],
        operationId: "createPrompts",
        summary: "Create up to 500 prompts across a brand's markets (per-item results)",
        params: brandParams,
        headers: idempotencyHeaders,
        body: bulkPromptsBody,
        response: {
          201: bulkPromptsResponse,
          207: bulkPromptsResponse,
          ...errorResponses(
            "notFound",
            "semrushProvisioningIncomplete",
            "workspaceMisconfigured",
            IDEMPOTENT,
            WITH_BODY,
          ),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId } = request.params;
      const outcomes = await services.prompts.bulkCreate(
        principalOf(request),
        orgId,
        brandId,
        request.body.items,
        {
          requestId: request.id,
        },
      );
      const { status, body, retryAfter } = bulkPromptsView(outcomes);
      if (retryAfter !== undefined) void reply.header("retry-after", String(retryAfter));
      return reply.status(status).send(body);
    },
  );

  typed.get(
    PROMPTS,
    {
      schema: {
        tags: ["prompts"],
        summary: "List a market's prompts (published only unless includeDrafts=true)",
        params: brandParams,
        querystring: promptListQuery,
        response: {
          200: promptList,
          ...errorResponses(
            "forbidden",
            "notFound",
            "semrushProvisioningIncomplete",
            "workspaceMisconfigured",
            UPSTREAM_READ,
          ),
        },
      },
    },
    async (request) => {
      const { orgId, brandId } = request.params;
      return services.prompts.list(principalOf(request), orgId, brandId, request.query);
    },
  );

  typed.delete(
    PROMPTS,
    {
      schema: {
        tags: ["prompts"],
        summary: "Delete prompts of a market by id",
        params: brandParams,
        body: deletePromptsBody,
        response: {
          204: noContent,
          ...errorResponses(
            "forbidden",
            "notFound",
            "semrushProvisioningIncomplete",
            "workspaceMisconfigured",
            UPSTREAM_WRITE,
            WITH_BODY,
          ),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId } = request.params;
      await services.prompts.delete(principalOf(request), orgId, brandId, request.body, {
        requestId: request.id,
      });
      return reply.status(204).send(null);
    },
  );
}
