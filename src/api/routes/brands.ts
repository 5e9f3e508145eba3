import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { activationView } from "../../brandLifecycle/activationView.ts";
import { brandView } from "../../brands/brandView.ts";
import { accepted } from "../accepted.ts";
import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { idempotencyHeaders } from "../idempotency.ts";
import { pageOf } from "../paging.ts";
import {
  activateBrandBody,
  activationSchema,
  brandAccepted,
  brandCreated,
  brandList,
  brandListQuery,
  brandSchema,
  createBrandBody,
  deactivationSchema,
  provisioningAccepted,
} from "../schemas/brands.ts";
import { brandParams, orgParams } from "../schemas/common.ts";
import {
  ALLOCATION,
  BRAND_LEASE,
  errorResponses,
  IDEMPOTENT,
  PROVISIONING,
  UPSTREAM_WRITE,
  WITH_BODY,
} from "../schemas/routeErrors.ts";

export async function brandRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    "/v2/orgs/:orgId/brands",
    {
      config: { idempotent: true },
      schema: {
        tags: ["brands"],
        summary: "Create a brand (flat, or provisioned in its own sub-workspace with `semrushMarket`)",
        description:
          "With `semrushMarket` and `async: true`, the brand is stored `pending` and provisioned by a job (202): poll `…/serenity/jobs/{jobId}`.",
        params: orgParams,
        headers: idempotencyHeaders,
        body: createBrandBody,
        response: {
          201: brandCreated,
          202: brandAccepted,
          ...errorResponses(
            "forbidden",
            "notFound",
            "brandExists",
            "marketExists",
            IDEMPOTENT,
            PROVISIONING,
            UPSTREAM_WRITE,
            ALLOCATION,
            BRAND_LEASE,
            WITH_BODY,
          ),
        },
      },
    },
    async (request, reply) => {
      const outcome = await services.brandLifecycle.createBrand(
        principalOf(request),
        request.params.orgId,
        request.body,
        { requestId: request.id },
      );
      if ("accepted" in outcome) {
        const { brand, jobId, jobType } = outcome.accepted;
        const { job } = accepted(reply, {
          family: "job",
          orgId: brand.orgId,
          brandId: brand.id,
          jobId,
          jobType,
        });
        return reply.send({ ...brandView(brand), jobId, jobType, job });
      }
      const { promptGeneration } = outcome;
      return reply
        .status(201)
        .send({ ...brandView(outcome.done), ...(promptGeneration ? { promptGeneration } : {}) });
    },
  );

  typed.get(
    "/v2/orgs/:orgId/brands",
    {
      schema: {
        tags: ["brands"],
        summary: "List an org's brands",
        params: orgParams,
        querystring: brandListQuery,
        response: { 200: brandList, ...errorResponses("notFound") },
      },
    },
    async (request) =>
      pageOf(
        (await services.brands.list(principalOf(request), request.params.orgId)).map(brandView),
        (brand) => `${brand.createdAt}|${brand.id}`,
        request.query,
      ),
  );

  typed.get(
    "/v2/orgs/:orgId/brands/:brandId",
    {
      schema: {
        tags: ["brands"],
        summary: "Get a brand",
        params: brandParams,
        response: { 200: brandSchema, ...errorResponses("notFound") },
      },
    },
    async (request) =>
      brandView(
        await services.brands.get(principalOf(request), request.params.orgId, request.params.brandId),
      ),
  );

  typed.post(
    "/v2/orgs/:orgId/brands/:brandId/serenity/activate",
    {
      config: { idempotent: true },
      schema: {
        tags: ["brands"],
        summary:
          "Activate a brand: give it a sub-workspace if it has none, then create the requested markets",
        params: brandParams,
        headers: idempotencyHeaders,
        body: activateBrandBody,
        response: {
          200: activationSchema,
          202: provisioningAccepted,
          ...errorResponses(
            "forbidden",
            "notFound",
            "invalidState",
            "marketExists",
            IDEMPOTENT,
            PROVISIONING,
            UPSTREAM_WRITE,
            ALLOCATION,
            BRAND_LEASE,
            WITH_BODY,
          ),
        },
      },
    },
    async (request, reply) => {
      const input = request.body ?? {};
      const outcome = await services.brandLifecycle.activate(
        principalOf(request),
        request.params.orgId,
        request.params.brandId,
        input,
        { requestId: request.id },
      );
      if ("accepted" in outcome) {
        const { orgId, brandId } = request.params;
        const { jobId, jobType } = outcome.accepted;
        const { job } = accepted(reply, { family: "job", orgId, brandId, jobId, jobType });
        return reply.send({ jobId, status: "IN_PROGRESS" as const, job });
      }
      return reply.status(200).send(activationView(outcome.done));
    },
  );

  typed.post(
    "/v2/orgs/:orgId/brands/:brandId/serenity/deactivate",
    {
      schema: {
        tags: ["brands"],
        summary:
          "Deactivate a brand: cancel provisioning, empty and release its sub-workspace, back to pending",
        params: brandParams,
        response: {
          200: deactivationSchema,
          ...errorResponses(
            "forbidden",
            "notFound",
            "workspaceMisconfigured",
            "workspaceBusy",
            "semrushProvisioningInProgress",
            // The release of the brand's surplus after its projects are deleted.
            "allocationMisconfigured",
            UPSTREAM_WRITE,
            BRAND_LEASE,
            WITH_BODY,
          ),
        },
      },
    },
    async (request) =>
      services.brandLifecycle.deactivate(principalOf(request), request.params.orgId, request.params.brandId, {
        requestId: request.id,
      }),
  );
}
