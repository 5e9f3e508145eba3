import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { brandList, brandSchema, createBrandBody } from "../schemas/brands.ts";
import { brandParams, errorResponses, orgParams } from "../schemas/common.ts";
import { brandView } from "../views/brandView.ts";

export async function brandRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    "/v2/orgs/:orgId/brands",
    {
      schema: {
        tags: ["brands"],
        summary: "Create a brand",
        params: orgParams,
        body: createBrandBody,
        response: { 201: brandSchema, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const { async: _async, ...input } = request.body;
      const brand = await services.brands.createFlat(principalOf(request), request.params.orgId, input);
      return reply.status(201).send(brandView(brand));
    },
  );

  typed.get(
    "/v2/orgs/:orgId/brands",
    {
      schema: {
        tags: ["brands"],
        summary: "List an org's brands",
        params: orgParams,
        response: { 200: brandList, ...errorResponses(404) },
      },
    },
    async (request) => ({
      items: (await services.brands.list(principalOf(request), request.params.orgId)).map(brandView),
    }),
  );

  typed.get(
    "/v2/orgs/:orgId/brands/:brandId",
    {
      schema: {
        tags: ["brands"],
        summary: "Get a brand",
        params: brandParams,
        response: { 200: brandSchema, ...errorResponses(404) },
      },
    },
    async (request) =>
      brandView(
        await services.brands.get(principalOf(request), request.params.orgId, request.params.brandId),
      ),
  );
}
