import { z } from "zod";

import { ERROR_CODES } from "../../domain/errors.ts";
import { MAX_BULK_PROMPTS } from "../../prompts/bulkOutcome.ts";
import { limitParam } from "../paging.ts";
import { geoTargetIdNumber } from "./common.ts";
import { languageCodeSchema } from "./markets.ts";

const geoTargetId = geoTargetIdNumber;

export const bulkPromptsBody = z.strictObject({
  items: z
    .array(
      z.strictObject({
        // Text and category are checked per item by the service: an invalid one fails alone.
        text: z.string(),
        geoTargetId,
        languageCode: z.string().min(1).max(35),
        category: z.string().optional(),
      }),
    )
    .min(1)
    .max(MAX_BULK_PROMPTS),
});

export const bulkPromptsResponse = z
  .object({
    items: z.array(
      z.object({
        index: z.number().int(),
        status: z
          .number()
          .int()
          .meta({ description: "201 created, 200 already existed, else the error's status" }),
        id: z.string().optional(),
        error: z
          .object({ code: z.enum(ERROR_CODES as [string, ...string[]]), message: z.string() })
          .optional(),
      }),
    ),
  })
  .meta({ id: "BulkPromptResult" });

const idList = z
  .string()
  .regex(/^[^,]{1,100}(,[^,]{1,100}){0,49}$/, "must be 1 to 50 comma-separated ids")
  .optional()
  .transform((value) => (value === undefined ? undefined : value.split(",")));

export const promptListQuery = z.strictObject({
  geoTargetId: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, "must be a positive integer")
    .transform(Number),
  languageCode: languageCodeSchema,
  includeDrafts: z
    .enum(["true", "false"], { message: "includeDrafts must be true or false" })
    .optional()
    .transform((value) => value === "true"),
  page: z
    .string()
    .regex(/^[1-9]\d{0,5}$/, "must be a positive integer")
    .optional()
    .transform((value) => (value === undefined ? undefined : Number(value)))
    .meta({ description: "Page mode (deprecated: use cursor); without it the list pages by cursor" }),
  cursor: z.string().min(1).max(200).optional().meta({ description: "nextCursor of the previous page" }),
  limit: limitParam(),
  search: z.string().min(1).max(200).optional().meta({ description: "Text contains, case-insensitive" }),
  categoryIds: idList.meta({ description: "Comma-separated category ids: prompts in any of them" }),
  tagIds: idList.meta({ description: "Comma-separated tag ids: prompts carrying any of them" }),
  sort: z.enum(["createdAt", "updatedAt", "text"]).optional(),
  order: z.enum(["asc", "desc"]).optional(),
});

export const promptItem = z
  .object({
    id: z.string(),
    text: z.string(),
    tags: z.array(z.object({ id: z.string(), name: z.string(), dimension: z.string().nullable() })),
    isDraft: z.boolean(),
    createdAt: z.string().nullable(),
    createdBy: z.string().nullable(),
    updatedAt: z.string().nullable(),
    updatedBy: z.string().nullable(),
  })
  .meta({ id: "Prompt" });

export const promptList = z
  .object({
    items: z.array(promptItem),
    page: z.number().int(),
    total: z.number().int(),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
  })
  .meta({ id: "PromptPage" });

export const deletePromptsBody = z.strictObject({
  geoTargetId,
  languageCode: languageCodeSchema,
  ids: z.array(z.string().min(1).max(100)).min(1).max(MAX_BULK_PROMPTS),
});
