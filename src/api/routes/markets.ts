import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { marketView } from "../../markets/marketView.ts";
import { accepted } from "../accepted.ts";
import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { idempotencyHeaders } from "../idempotency.ts";
import { pageOf } from "../paging.ts";
import { provisioningAccepted } from "../schemas/brands.ts";
import { brandParams, noContent } from "../schemas/common.ts";
import {
  createMarketBody,
  createMarketResponse,
  marketList,
  marketListQuery,
  marketParams,
  marketSchema,
  replaceModelsBody,
} from "../schemas/markets.ts";
import {
  ALLOCATION,
  BRAND_LEASE,
  errorResponses,
  IDEMPOTENT,
  UPSTREAM_READ,
  UPSTREAM_WRITE,
  WITH_BODY,
} from "../schemas/routeErrors.ts";

const MARKETS = "/v2/orgs/:orgId/brands/:brandId/serenity/markets";

export async function marketRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    MARKETS,
    {
      config: { idempotent: true },
      schema: {
        tags: ["markets"],
        summary: "Create a market (one upstream project per country × language)",
        params: brandParams,
        headers: idempotencyHeaders,
        body: createMarketBody,
        response: {
          201: createMarketResponse,
          202: provisioningAccepted,
          ...errorResponses(
            "forbidden",
            "notFound",
            "marketExists",
            "invalidState",
            "semrushProvisioningIncomplete",
            "semrushProvisioningInProgress",
            IDEMPOTENT,
            UPSTREAM_WRITE,
            ALLOCATION,
            BRAND_LEASE,
            WITH_BODY,
          ),
        },
      },
    },
    async (request, reply) => {
      const outcome = await services.markets.create(
        principalOf(request),
        request.params.orgId,
        request.params.brandId,
        request.body,
        { requestId: request.id },
      );
      if ("accepted" in outcome) {
        const { orgId, brandId } = request.params;
        const { jobId, jobType } = outcome.accepted;
        const { job } = accepted(reply, { family: "job", orgId, brandId, jobId, jobType });
        return reply.send({ jobId, status: "IN_PROGRESS" as const, job });
      }
      const { promptGeneration } = outcome;
      return reply
        .status(201)
        .send({ market: marketView(outcome.done), ...(promptGeneration ? { promptGeneration } : {}) });
    },
  );

  typed.get(
    MARKETS,
    {
      schema: {
        tags: ["markets"],
        summary: "List a brand's markets with their upstream state",
        params: brandParams,
        querystring: marketListQuery,
        response: { 200: marketList, ...errorResponses("forbidden", "notFound", UPSTREAM_READ) },
      },
    },
    async (request) => {
      const { orgId, brandId } = request.params;
      const markets = await services.markets.list(principalOf(request), orgId, brandId, {
        requestId: request.id,
      });
      // Markets page by (geoTargetId, languageCode); every page reads the brand's markets whole.
      return pageOf(
        markets.map(marketView),
        (market) => `${String(market.geoTargetId).padStart(10, "0")}|${market.languageCode}`,
        request.query,
      );
    },
  );

  typed.delete(
    `${MARKETS}/:geoTargetId/:languageCode`,
    {
      schema: {
        tags: ["markets"],
        summary: "Delete a market and its upstream project",
        params: marketParams,
        response: {
          204: noContent,
          ...errorResponses(
            "forbidden",
            "notFound",
            "invalidState",
            "semrushProvisioningIncomplete",
            "workspaceMisconfigured",
            UPSTREAM_WRITE,
            BRAND_LEASE,
            WITH_BODY,
          ),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId, geoTargetId, languageCode } = request.params;
      await services.markets.delete(principalOf(request), orgId, brandId, geoTargetId, languageCode, {
        requestId: request.id,
      });
      return reply.status(204).send(null);
    },
  );

  typed.put(
    `${MARKETS}/:geoTargetId/:languageCode/models`,
    {
      schema: {
        tags: ["markets"],
        operationId: "replaceMarketModels",
        summary: "Replace the AI models a market tracks",
        params: marketParams,
        body: replaceModelsBody,
        response: {
          200: marketSchema,
          ...errorResponses(
            "forbidden",
            "notFound",
            "invalidState",
            "semrushProvisioningIncomplete",
            ALLOCATION,
            UPSTREAM_WRITE,
            BRAND_LEASE,
            WITH_BODY,
          ),
        },
      },
    },
    async (request) => {
      const { orgId, brandId, geoTargetId, languageCode } = request.params;
      const market = await services.markets.replaceModels(
        principalOf(request),
        orgId,
        brandId,
        geoTargetId,
        languageCode,
        request.body.modelIds,
        { requestId: request.id },
      );
      return marketView(market);
    },
  );
}
