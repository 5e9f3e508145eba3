import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { languageCatalogue, modelCatalogue } from "../schemas/catalogues.ts";
import { errorResponses, UPSTREAM_READ } from "../schemas/routeErrors.ts";

export async function catalogueRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    "/v2/serenity/models",
    {
      schema: {
        tags: ["catalogues"],
        summary: "The upstream AI model catalogue",
        response: { 200: modelCatalogue, ...errorResponses(UPSTREAM_READ) },
      },
    },
    async (request) => ({ items: await services.catalogues.models(principalOf(request).bearer) }),
  );

  typed.get(
    "/v2/serenity/languages",
    {
      schema: {
        tags: ["catalogues"],
        summary: "The languages a market can use, with their ISO codes",
        response: { 200: languageCatalogue, ...errorResponses(UPSTREAM_READ) },
      },
    },
    async (request) => ({
      items: (await services.catalogues.languages(principalOf(request).bearer)).flatMap((language) =>
        language.code === null ? [] : [{ code: language.code, name: language.name, id: language.id }],
      ),
    }),
  );
}
