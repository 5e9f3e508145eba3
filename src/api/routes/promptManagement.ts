import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";

import { ERROR_REGISTRY } from "../../domain/errors.ts";
import type { CategoryNode } from "../../markets/categoryTree.ts";
import { marketView } from "../../markets/marketView.ts";
import type { AppDeps } from "../appDeps.ts";
import { principalOf } from "../authentication.ts";
import { idempotencyHeaders } from "../idempotency.ts";
import { noContent } from "../schemas/common.ts";
import { marketParams } from "../schemas/markets.ts";
import {
  bulkDeleteBody,
  bulkDeleteResponse,
  categoryList,
  categoryListQuery,
  categoryParams,
  categorySchema,
  createCategoryBody,
  deleteCategoryQuery,
  editPromptBody,
  marketDetailSchema,
  oneCategoryParams,
  promptItem,
  promptParams,
  updateCategoryBody,
} from "../schemas/promptManagement.ts";
import {
  ALLOCATION,
  errorResponses,
  IDEMPOTENT,
  UPSTREAM_READ,
  UPSTREAM_WRITE,
  WITH_BODY,
} from "../schemas/routeErrors.ts";

const BRAND = "/v2/orgs/:orgId/brands/:brandId/serenity";
const CATEGORIES = `${BRAND}/markets/:geoTargetId/:languageCode/categories`;

/** The tree of `nodes` (breadth-first, parents first): top-level categories with their children. */
function asTree(nodes: CategoryNode[]) {
  type Node = Omit<CategoryNode, "childCount"> & { children: Node[] };
  const byId = new Map<string, Node>();
  const roots: Node[] = [];
  for (const { childCount: _, ...node } of nodes) {
    const entry: Node = { ...node, children: [] };
    byId.set(node.id, entry);
    const parent = node.parentId === null ? undefined : byId.get(node.parentId);
    if (parent) parent.children.push(entry);
    else roots.push(entry);
  }
  return roots;
}

const flat = ({ childCount: _, ...node }: CategoryNode) => node;

/** Prompts and categories day to day (spec/api.md §5, docs/decisions/0040). */
export async function promptManagementRoutes(app: FastifyInstance, { services }: AppDeps): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const manage = services.prompts.manage;

  typed.patch(
    `${BRAND}/prompts/:promptId`,
    {
      config: { idempotent: true },
      schema: {
        tags: ["prompts"],
        operationId: "editPrompt",
        summary:
          "Edit a prompt in place: its text and/or category (the id is kept; the market is published once)",
        params: promptParams,
        headers: idempotencyHeaders,
        body: editPromptBody,
        response: {
          200: promptItem,
          ...errorResponses("notFound", "promptExists", IDEMPOTENT, UPSTREAM_WRITE, ALLOCATION, WITH_BODY),
        },
      },
    },
    async (request) => {
      const { orgId, brandId, promptId } = request.params;
      return manage.edit(principalOf(request), orgId, brandId, promptId, request.body, {
        requestId: request.id,
      });
    },
  );

  typed.post(
    `${BRAND}/prompts/bulk-delete`,
    {
      config: { idempotent: true },
      schema: {
        tags: ["prompts"],
        operationId: "bulkDeletePrompts",
        summary: "Delete prompts across a brand's markets (per-market results; each market published once)",
        params: marketParams.pick({ orgId: true, brandId: true }),
        headers: idempotencyHeaders,
        body: bulkDeleteBody,
        response: {
          200: bulkDeleteResponse,
          207: bulkDeleteResponse,
          ...errorResponses("notFound", IDEMPOTENT, WITH_BODY),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId } = request.params;
      const outcomes = await manage.bulkDelete(principalOf(request), orgId, brandId, request.body.items, {
        requestId: request.id,
      });
      const items = outcomes.map((outcome) =>
        "deleted" in outcome
          ? { index: outcome.index, status: 204, deleted: outcome.deleted }
          : {
              index: outcome.index,
              status: ERROR_REGISTRY[outcome.code].status,
              error: { code: outcome.code, message: outcome.message },
            },
      );
      return reply.status(items.every((item) => item.status === 204) ? 200 : 207).send({ items });
    },
  );

  typed.get(
    `${BRAND}/markets/:geoTargetId/:languageCode`,
    {
      schema: {
        tags: ["markets"],
        operationId: "getMarket",
        summary:
          "One market: its upstream project id, publish and init status, models, prompt and category counts",
        params: marketParams,
        response: { 200: marketDetailSchema, ...errorResponses("notFound", UPSTREAM_READ) },
      },
    },
    async (request) => {
      const { orgId, brandId, geoTargetId, languageCode } = request.params;
      const market = await services.markets.detail(
        principalOf(request),
        orgId,
        brandId,
        geoTargetId,
        languageCode,
      );
      return { ...marketView(market), initialized: market.initialized, categoryCount: market.categoryCount };
    },
  );

  typed.get(
    CATEGORIES,
    {
      schema: {
        tags: ["categories"],
        operationId: "listCategories",
        summary: "A market's categories, flat or as a tree (tree=true)",
        params: categoryParams,
        querystring: categoryListQuery,
        response: { 200: categoryList, ...errorResponses("notFound", UPSTREAM_READ) },
      },
    },
    async (request) => {
      const { orgId, brandId, geoTargetId, languageCode } = request.params;
      const nodes = await manage.categories(principalOf(request), orgId, brandId, {
        geoTargetId,
        languageCode,
      });
      return { items: request.query.tree ? asTree(nodes) : nodes.map(flat) };
    },
  );

  typed.post(
    CATEGORIES,
    {
      config: { idempotent: true },
      schema: {
        tags: ["categories"],
        operationId: "createCategory",
        summary: "Create a category (top level, or under parentId)",
        params: categoryParams,
        headers: idempotencyHeaders,
        body: createCategoryBody,
        response: {
          201: categorySchema,
          ...errorResponses("notFound", "categoryExists", IDEMPOTENT, UPSTREAM_WRITE, ALLOCATION, WITH_BODY),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId, geoTargetId, languageCode } = request.params;
      const made = await manage.createCategory(
        principalOf(request),
        orgId,
        brandId,
        { geoTargetId, languageCode },
        request.body,
        { requestId: request.id },
      );
      return reply.status(201).send(flat(made));
    },
  );

  typed.patch(
    `${CATEGORIES}/:categoryId`,
    {
      config: { idempotent: true },
      schema: {
        tags: ["categories"],
        operationId: "updateCategory",
        summary: "Rename and/or move a category (never under itself or its subcategories)",
        params: oneCategoryParams,
        headers: idempotencyHeaders,
        body: updateCategoryBody,
        response: {
          200: categorySchema,
          ...errorResponses("notFound", "categoryExists", IDEMPOTENT, UPSTREAM_WRITE, ALLOCATION, WITH_BODY),
        },
      },
    },
    async (request) => {
      const { orgId, brandId, geoTargetId, languageCode, categoryId } = request.params;
      const updated = await manage.updateCategory(
        principalOf(request),
        orgId,
        brandId,
        { geoTargetId, languageCode },
        categoryId,
        request.body,
        { requestId: request.id },
      );
      return flat(updated);
    },
  );

  typed.delete(
    `${CATEGORIES}/:categoryId`,
    {
      schema: {
        tags: ["categories"],
        operationId: "deleteCategory",
        summary: "Delete a category: its prompts move to reassignTo, else a category in use is refused",
        params: oneCategoryParams,
        querystring: deleteCategoryQuery,
        response: {
          204: noContent,
          ...errorResponses("notFound", "categoryInUse", UPSTREAM_WRITE, ALLOCATION, WITH_BODY),
        },
      },
    },
    async (request, reply) => {
      const { orgId, brandId, geoTargetId, languageCode, categoryId } = request.params;
      await manage.deleteCategory(
        principalOf(request),
        orgId,
        brandId,
        { geoTargetId, languageCode },
        categoryId,
        request.query.reassignTo,
        { requestId: request.id },
      );
      return reply.status(204).send(null);
    },
  );
}
