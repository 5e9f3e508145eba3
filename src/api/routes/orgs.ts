import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { idempotencyHeaders } from "../idempotency.ts";
import { pageOf } from "../paging.ts";
import { orgParams } from "../schemas/common.ts";
import { createOrgBody, orgList, orgListQuery, orgSchema, updateOrgBody } from "../schemas/orgs.ts";
import { errorResponses, IDEMPOTENT, WITH_BODY } from "../schemas/routeErrors.ts";
import { orgView } from "../views/orgView.ts";

/** Orgs page in creation order. */
const orgKey = (org: { createdAt: string; id: string }) => `${org.createdAt}|${org.id}`;

export async function orgRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    "/v2/orgs",
    {
      config: { idempotent: true },
      schema: {
        tags: ["orgs"],
        summary: "Create an org (admin)",
        headers: idempotencyHeaders,
        body: createOrgBody,
        response: {
          201: orgSchema,
          ...errorResponses("forbidden", "parentWorkspaceInUse", IDEMPOTENT, WITH_BODY),
        },
      },
    },
    async (request, reply) => {
      const org = await services.orgs.create(principalOf(request), request.body);
      return reply.status(201).send(orgView(org));
    },
  );

  typed.get(
    "/v2/orgs",
    {
      schema: {
        tags: ["orgs"],
        summary: "List the orgs the caller may access",
        querystring: orgListQuery,
        response: { 200: orgList, ...errorResponses() },
      },
    },
    async (request) =>
      pageOf((await services.orgs.list(principalOf(request))).map(orgView), orgKey, request.query),
  );

  typed.get(
    "/v2/orgs/:orgId",
    {
      schema: {
        tags: ["orgs"],
        summary: "Get an org",
        params: orgParams,
        response: { 200: orgSchema, ...errorResponses("notFound") },
      },
    },
    async (request) => orgView(await services.orgs.getAccessible(principalOf(request), request.params.orgId)),
  );

  typed.patch(
    "/v2/orgs/:orgId",
    {
      schema: {
        tags: ["orgs"],
        summary: "Update an org (admin)",
        params: orgParams,
        body: updateOrgBody,
        response: {
          200: orgSchema,
          ...errorResponses("forbidden", "notFound", "parentWorkspaceInUse", WITH_BODY),
        },
      },
    },
    async (request) =>
      orgView(await services.orgs.update(principalOf(request), request.params.orgId, request.body)),
  );
}
