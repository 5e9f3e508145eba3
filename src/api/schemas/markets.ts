import { z } from "zod";

import { PAGE_LIMIT_MAX, pageFields, pageQueryFields } from "../paging.ts";
import { httpUrl, isoTimestamp, uuidParam } from "./common.ts";
import { promptGenerationSchema } from "./generationJobs.ts";

/** A geo target id in a path or query: a positive integer such as 2840. */
export const geoTargetIdParam = z
  .string()
  .regex(/^[1-9]\d{0,8}$/, "must be a positive integer")
  .transform(Number);

export const languageCodeSchema = z
  .string()
  .regex(/^[A-Za-z]{2,3}$/, "must be a 2 or 3 letter language code")
  .transform((code) => code.toLowerCase());

export const marketParams = z.object({
  orgId: uuidParam,
  brandId: uuidParam,
  geoTargetId: geoTargetIdParam,
  languageCode: languageCodeSchema,
});

export const marketSchema = z
  .object({
    geoTargetId: z.number().int(),
    languageCode: z.string(),
    country: z.string().meta({ description: "ISO 3166-1 alpha-2, upper case" }),
    projectId: z.string().nullable(),
    publishStatus: z.string().meta({
      description:
        "The upstream publish status (draft, publishing, initial_publish_failed, live, live_with_unpublished_updates), or `missing` when the project no longer exists upstream",
    }),
    models: z.array(z.object({ id: z.string(), key: z.string(), name: z.string() })),
    promptCount: z.number().int(),
    createdAt: isoTimestamp,
  })
  .meta({ id: "Market" });

const modelId = z.string().trim().min(1).max(100);

export const createMarketBody = z.strictObject({
  market: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code")
    .meta({ description: "ISO 3166-1 alpha-2 country code, e.g. US" }),
  languageCode: languageCodeSchema,
  primaryUrl: httpUrl().nullable().optional(),
  modelIds: z.array(modelId).min(1).max(50).optional().meta({
    description:
      "Catalogue model ids (or keys); default: those of the brand's first market, else the default set",
  }),
  generatePrompts: z.boolean().optional(),
  async: z.boolean({ message: "async must be a boolean" }).optional(),
});

export const createMarketResponse = z.object({
  market: marketSchema,
  promptGeneration: promptGenerationSchema.optional(),
});

export const marketListQuery = z.strictObject(pageQueryFields(PAGE_LIMIT_MAX));

export const marketList = z.object(pageFields(marketSchema)).meta({ id: "MarketPage" });

export const replaceModelsBody = z.strictObject({ modelIds: z.array(modelId).min(1).max(50) });
