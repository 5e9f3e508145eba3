import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { decodeCursor, encodeCursor } from "../paging.ts";
import { ledgerPageSchema, ledgerQuery, poolViewSchema } from "../schemas/allocation.ts";
import { orgParams } from "../schemas/common.ts";
import { errorResponses, UPSTREAM_READ } from "../schemas/routeErrors.ts";
import { ledgerPageView, poolViewView } from "../views/allocationView.ts";

export async function allocationRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    "/v2/orgs/:orgId/serenity/resources",
    {
      schema: {
        tags: ["allocation"],
        summary: "The org's AI pool and every brand's allocation, usage, free and stranded units",
        params: orgParams,
        response: { 200: poolViewSchema, ...errorResponses("forbidden", "notFound", UPSTREAM_READ) },
      },
    },
    async (request) => poolViewView(await services.poolView.view(principalOf(request), request.params.orgId)),
  );

  typed.get(
    "/v2/orgs/:orgId/serenity/allocation-ledger",
    {
      schema: {
        tags: ["allocation"],
        summary: "The org's allocation transfer history, newest first",
        params: orgParams,
        querystring: ledgerQuery,
        response: { 200: ledgerPageSchema, ...errorResponses("forbidden", "notFound") },
      },
    },
    async (request) => {
      const { cursor, ...query } = request.query;
      // The cursor is the deprecated `before` made opaque: the id of the last entry shown.
      const before =
        cursor === undefined ? query.before : Number(decodeCursor(cursor, { before: "number" }).before);
      const page = await services.allocation.listLedger(principalOf(request), request.params.orgId, {
        ...query,
        before,
      });
      return {
        ...ledgerPageView(page),
        nextCursor: page.nextBefore === null ? null : encodeCursor({ before: page.nextBefore }),
      };
    },
  );
}
