import type { FastifyInstance } from "fastify";
import { z } from "zod";

import { AI_MODELS } from "../../catalogue/aiModels.ts";
import { brandTopicsFor } from "../../catalogue/brandTopics.ts";
import { LANGUAGES } from "../../catalogue/languages.ts";
import type { SimContext } from "../../context.ts";
import { parseOrReject } from "../../http/responses.ts";
import { modelView } from "../../views.ts";
import { findWorkspace } from "./lookup.ts";

const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const topicsQuery = z.object({ domain: z.string().trim().min(1), country: z.string().trim().min(1) });

/** Project Engine catalogues: languages, AI models, brand topics. */
export function registerCatalogueRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get("/v1/languages", async () => ({
    page: 1,
    total: LANGUAGES.length,
    items: LANGUAGES.map((language) => ({ id: language.id, name: language.name })),
  }));

  app.get("/v1/ai_models", async (request, reply) => {
    const query = parseOrReject(pageQuery, request.query, reply, "pe");
    if (!query) return reply;
    const start = (query.page - 1) * query.limit;
    return {
      page: query.page,
      total: AI_MODELS.length,
      items: AI_MODELS.slice(start, start + query.limit).map(modelView),
    };
  });

  app.get<{ Params: { ws: string } }>("/v1/workspaces/:ws/brand-topics", async (request, reply) => {
    const query = parseOrReject(topicsQuery, request.query, reply, "pe");
    if (!query) return reply;
    if (!findWorkspace(ctx, request.params.ws, reply)) return reply;
    return brandTopicsFor(query.domain, query.country, ctx.settings.industries);
  });
}
