import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { activationView } from "../../brandLifecycle/activationView.ts";
import { brandView } from "../../brands/brandView.ts";
import { accepted, jobLocation } from "../accepted.ts";
import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { idempotencyHeaders } from "../idempotency.ts";
import { pageOf } from "../paging.ts";
import {
  activateBrandBody,
  activationSchema,
  brandAccepted,
  brandCreated,
  brandDeleteAccepted,
  brandList,
  brandListQuery,
  brandSchema,
  brandUpdated,
  createBrandBody,
  deactivationSchema,
  patchBrandBody,
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

  typed.patch(
    "/v2/orgs/:orgId/brands/:brandId",
    {
      config: { idempotent: true },
      schema: {
        tags: ["brands"],
        operationId: "updateBrand",
        summary: "Change a brand's identity: name, domain, primary URL, aliases, competitors, URLs",
        description:
          "Each field given replaces the stored one whole. Every market follows through one propagation job (`job`; null when no market must follow): the project's brand names, the competitors as benchmarks and CI competitors, the URLs as the own-brand benchmark's brand URLs. A newer PATCH supersedes a running propagation at its next market. An alias equal to a competitor's name, two competitors on one domain, a URL listed twice: 400 with each problem's pointer.",
        params: brandParams,
        headers: idempotencyHeaders,
        body: patchBrandBody,
        response: {
          200: brandUpdated,
          ...errorResponses("forbidden", "notFound", "brandExists", IDEMPOTENT, BRAND_LEASE, WITH_BODY),
        },
      },
    },
    async (request) => {
      const { orgId, brandId } = request.params;
      const { brand, propagation } = await services.brandIdentity.update(
        principalOf(request),
        orgId,
        brandId,
        request.body,
      );
      const job = propagation
        ? {
            id: propagation.jobId,
            type: propagation.jobType,
            status: "IN_PROGRESS" as const,
            location: jobLocation("job", { orgId, brandId, jobId: propagation.jobId }),
          }
        : null;
      return { ...brandView(brand), job };
    },
  );

  typed.delete(
    "/v2/orgs/:orgId/brands/:brandId",
    {
      config: { idempotent: true },
      schema: {
        tags: ["brands"],
        operationId: "deleteBrand",
        summary:
          "Delete a brand: deactivate it (projects deleted, allocation released), then mark it deleted",
        description:
          "202 with the job (one per brand: a repeat names the same job), polled at the org's job timeline since every route under the brand answers 404 once it is deleted. The brand's name is free again once it is deleted; the emptied sub-workspace stays upstream as a parked shell.",
        params: brandParams,
        headers: idempotencyHeaders,
        response: {
          202: brandDeleteAccepted,
          ...errorResponses("forbidden", "notFound", IDEMPOTENT),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId } = request.params;
      const started = await services.brandIdentity.delete(principalOf(request), orgId, brandId);
      return reply.send(
        accepted(reply, { family: "org", orgId, brandId, jobId: started.jobId, jobType: started.jobType }),
      );
    },
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
