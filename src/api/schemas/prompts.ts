import { z } from "zod";

import { ERROR_CODES } from "../../domain/errors.ts";
import { MAX_BULK_PROMPTS } from "../../prompts/bulkOutcome.ts";
import { geoTargetIdNumber, pageLimit } from "./common.ts";
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
    .transform((value) => (value === undefined ? 1 : Number(value))),
  limit: pageLimit(),
});

export const promptList = z
  .object({
    items: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        tags: z.array(z.object({ id: z.string(), name: z.string(), dimension: z.string().nullable() })),
        isDraft: z.boolean(),
      }),
    ),
    page: z.number().int(),
    total: z.number().int(),
  })
  .meta({ id: "PromptPage" });

export const deletePromptsBody = z.strictObject({
  geoTargetId,
  languageCode: languageCodeSchema,
  ids: z.array(z.string().min(1).max(100)).min(1).max(MAX_BULK_PROMPTS),
});
