import { z } from "zod";

import { ERROR_CODES } from "../../domain/errors.ts";
import { MAX_CATEGORY_DEPTH } from "../../markets/categoryTree.ts";
import { MAX_BULK_PROMPTS } from "../../prompts/bulkOutcome.ts";
import { uuidParam } from "./common.ts";
import { geoTargetIdParam, languageCodeSchema, marketSchema } from "./markets.ts";
import { promptItem } from "./prompts.ts";

const upstreamId = z.string().min(1).max(100);
const slice = {
  geoTargetId: z.number().int().positive().max(2_147_483_647),
  languageCode: languageCodeSchema,
};

export const promptParams = z.object({ orgId: uuidParam, brandId: uuidParam, promptId: upstreamId });

export const editPromptBody = z.strictObject({
  ...slice,
  // Checked by the service (trimmed, 1–1,000 characters, no control characters).
  text: z.string().optional(),
  category: z.string().nullable().optional().meta({
    description:
      "A top-level category of the market (made when new); null takes the prompt out of its category",
  }),
});

export const categoryParams = z.object({
  orgId: uuidParam,
  brandId: uuidParam,
  geoTargetId: geoTargetIdParam,
  languageCode: languageCodeSchema,
});

export const oneCategoryParams = categoryParams.extend({ categoryId: upstreamId });

export const categoryListQuery = z.strictObject({
  tree: z
    .enum(["true", "false"], { message: "tree must be true or false" })
    .optional()
    .transform((value) => value === "true"),
});

export const createCategoryBody = z.strictObject({
  name: z.string(),
  parentId: upstreamId.nullable().optional(),
});

export const updateCategoryBody = z.strictObject({
  name: z.string().optional(),
  parentId: upstreamId
    .nullable()
    .optional()
    .meta({ description: "Another category of the market; null = top level" }),
});

export const deleteCategoryQuery = z.strictObject({ reassignTo: upstreamId.optional() });

const categoryFields = {
  id: z.string(),
  name: z.string(),
  parentId: z.string().nullable(),
  depth: z
    .number()
    .int()
    .meta({ description: `1 for a top-level category; at most ${MAX_CATEGORY_DEPTH}` }),
  promptCount: z.number().int(),
};

export const categorySchema = z.object(categoryFields).meta({ id: "Category" });

type TreeNode = z.infer<typeof categorySchema> & { children: TreeNode[] };
export const categoryTreeNode: z.ZodType<TreeNode> = z
  .object({ ...categoryFields, children: z.array(z.lazy(() => categoryTreeNode)) })
  .meta({ id: "CategoryTreeNode" });

export const categoryList = z.object({ items: z.array(z.union([categoryTreeNode, categorySchema])) }).meta({
  id: "CategoryList",
  description: "Flat (breadth-first), or with tree=true the top-level categories with their children",
});

export const bulkDeleteBody = z
  .strictObject({
    items: z
      .array(z.strictObject({ ...slice, ids: z.array(upstreamId).min(1).max(MAX_BULK_PROMPTS) }))
      .min(1)
      .max(50),
  })
  .refine((body) => body.items.reduce((sum, item) => sum + item.ids.length, 0) <= MAX_BULK_PROMPTS, {
    message: `at most ${MAX_BULK_PROMPTS} ids in all`,
    path: ["items"],
  });

export const bulkDeleteResponse = z
  .object({
    items: z.array(
      z.object({
        index: z.number().int(),
        status: z.number().int().meta({ description: "204 deleted and published, else the error's status" }),
        deleted: z.number().int().optional(),
        error: z
          .object({ code: z.enum(ERROR_CODES as [string, ...string[]]), message: z.string() })
          .optional(),
      }),
    ),
  })
  .meta({ id: "BulkDeleteResult" });

export const marketDetailSchema = marketSchema
  .extend({
    initialized: z.boolean().nullable().meta({
      description:
        "The upstream's AI initialisation finished (init_status); null when the project is missing",
    }),
    categoryCount: z.number().int(),
  })
  .meta({ id: "MarketDetail" });

export { promptItem };
