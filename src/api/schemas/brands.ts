import { z } from "zod";

import {
  MAX_ALIASES,
  MAX_BRAND_URLS,
  MAX_COMPETITOR_ALIASES,
  MAX_COMPETITORS,
  URL_KINDS,
} from "../../domain/brandIdentity.ts";
import { acceptedJobSchema } from "../accepted.ts";
import { PAGE_LIMIT_MAX, pageFields, pageQueryFields } from "../paging.ts";
import { httpUrl, isoTimestamp, plainText, uuid } from "./common.ts";
import { promptGenerationSchema } from "./generationJobs.ts";
import { languageCodeSchema } from "./markets.ts";

export const brandSchema = z
  .object({
    id: uuid,
    orgId: uuid,
    name: z.string(),
    domain: z.string().nullable(),
    primaryUrl: z.string().nullable(),
    status: z.enum(["pending", "active", "deleted"]),
    mode: z.enum(["subworkspace", "flat"]),
    subWorkspaceId: z.string().nullable(),
    aliases: z.array(z.string()).describe("Other names of the brand: a prompt naming one is branded"),
    competitors: z.array(z.object({ name: z.string(), domain: z.string(), aliases: z.array(z.string()) })),
    urls: z.array(z.object({ url: z.string(), kind: z.enum(URL_KINDS) })),
    rejectedAliases: z
      .array(z.string())
      .describe(
        "Aliases Semrush rejected (`rejected_brand_aliases`): reported, not sent again until changed",
      ),
    provisioning: z.object({
      status: z.enum(["pending", "ready", "failed"]).nullable(),
      error: z.string().nullable(),
      jobId: z.string().nullable(),
    }),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: "Brand" });

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/,
    "must be a domain name such as example.com",
  );

const countryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code")
  .transform((code) => code.toUpperCase())
  .meta({ description: "ISO 3166-1 alpha-2 country code, e.g. US" });

const asyncFlag = z.boolean({ message: "async must be a boolean" }).optional();

const modelId = z.string().trim().min(1).max(100);

export const semrushMarketSchema = z.strictObject({
  market: countryCode,
  languageCode: languageCodeSchema,
  generatePrompts: z.boolean().optional(),
  modelIds: z.array(modelId).min(1).max(50).optional(),
});

export const createBrandBody = z.strictObject({
  name: plainText(200),
  domain: domain.nullable().optional(),
  primaryUrl: httpUrl().nullable().optional(),
  semrushMarket: semrushMarketSchema.optional().meta({
    description:
      "Provision the brand in sub-workspace mode with this initial market (requires the org's parent workspace)",
  }),
  async: asyncFlag,
});

export const activateBrandBody = z
  .strictObject({
    markets: z
      .array(z.strictObject({ market: countryCode, languageCode: languageCodeSchema }))
      .max(50)
      .optional(),
    generatePrompts: z.boolean().optional(),
    async: asyncFlag,
  })
  // A body-less POST is an activation without markets (Fastify hands the schema `null`).
  .nullish();

export const activationSchema = z
  .object({
    brandId: uuid,
    status: z.literal("active"),
    markets: z.array(
      z.object({
        geoTargetId: z.number().int(),
        languageCode: z.string(),
        outcome: z.enum(["created", "exists"]).meta({
          description: "`created`: this activation made the market; `exists`: it was already there",
        }),
        status: z
          .union([z.literal(201), z.literal(409)])
          .describe(
            "Deprecated: use `outcome`. The HTTP status the market's create would have answered (201 created, 409 exists)",
          )
          .meta({ deprecated: true }),
        promptGeneration: promptGenerationSchema.optional(),
      }),
    ),
  })
  .meta({ id: "BrandActivation" });

export const deactivationSchema = z
  .object({ brandId: uuid, status: z.literal("pending") })
  .meta({ id: "BrandDeactivation" });

/** 201 of create brand: the Brand, with its first market's generation handle when one was produced. */
export const brandCreated = brandSchema
  .extend({ promptGeneration: promptGenerationSchema.optional() })
  .meta({ id: "BrandCreated" });

export const brandListQuery = z.strictObject(pageQueryFields(PAGE_LIMIT_MAX));

export const brandList = z.object(pageFields(brandSchema)).meta({ id: "BrandPage" });

/** 202 of an asynchronous create brand: the Brand (pending) and the provisioning job to poll. */
export const brandAccepted = brandSchema
  .extend({ jobId: uuid, jobType: z.literal("provisionWorkspace"), job: acceptedJobSchema })
  .meta({ id: "BrandAccepted" });

/** 202 of an asynchronous activate or create market: the provisioning job to poll. */
export const provisioningAccepted = z
  .object({
    jobId: uuid.describe("Deprecated: use `job.id`").meta({ deprecated: true }),
    status: z.literal("IN_PROGRESS").describe("Deprecated: use `job.status`").meta({ deprecated: true }),
    job: acceptedJobSchema,
  })
  .meta({ id: "ProvisioningAccepted" });

const alias = plainText(200);

/** `PATCH /orgs/:orgId/brands/:brandId` (spec/api.md §5): each field given replaces the stored one whole. */
export const patchBrandBody = z
  .strictObject({
    name: plainText(200).optional(),
    domain: domain.nullable().optional(),
    primaryUrl: httpUrl().nullable().optional(),
    aliases: z.array(alias).max(MAX_ALIASES).optional(),
    competitors: z
      .array(
        z.strictObject({
          name: plainText(200),
          domain,
          aliases: z.array(alias).max(MAX_COMPETITOR_ALIASES).optional(),
        }),
      )
      .max(MAX_COMPETITORS)
      .optional(),
    urls: z
      .array(z.strictObject({ url: httpUrl(), kind: z.enum(URL_KINDS) }))
      .max(MAX_BRAND_URLS)
      .optional()
      .meta({
        description: "The brand's own, social and earned URLs (the own-brand benchmark's brand URLs)",
      }),
  })
  .refine((body) => Object.keys(body).length > 0, "must change at least one field");

/** 200 of a brand PATCH: the brand, and the job that makes its markets follow (null: none must). */
export const brandUpdated = brandSchema
  .extend({
    job: acceptedJobSchema
      .nullable()
      .describe("The propagation job every market follows the new identity through (null: no market must)"),
  })
  .meta({ id: "BrandUpdated" });

/** 202 of a brand DELETE: the job that deactivates the brand and then marks it deleted. */
export const brandDeleteAccepted = z.object({ job: acceptedJobSchema }).meta({ id: "BrandDeleteAccepted" });
