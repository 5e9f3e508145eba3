import { z } from "zod";

import { poolDimension } from "./allocation.ts";
import { isoTimestamp, uuid } from "./common.ts";

export const poolHistoryQuery = z.strictObject({
  since: z
    .string()
    .max(40)
    .refine((value) => /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value)), {
      message: "must be an ISO-8601 timestamp",
    })
    .optional()
    .transform((value) => (value === undefined ? undefined : new Date(value)))
    .meta({ description: "Start of the window (default: 24 hours ago; never before the retention)" }),
  limit: z
    .string()
    .regex(/^[1-9]\d{0,3}$/, "must be an integer from 1 to 2000")
    .refine((value) => Number(value) <= 2000, "must be an integer from 1 to 2000")
    .optional()
    .transform((value) => (value === undefined ? 500 : Number(value))),
});

const sample = {
  sampledAt: isoTimestamp,
  projects: poolDimension,
  prompts: poolDimension,
};

export const poolHistorySchema = z
  .object({
    items: z
      .array(z.object(sample))
      .meta({ description: "The newest `limit` samples of the window, oldest first" }),
    since: isoTimestamp,
    retentionMs: z.number().int().meta({ description: "How long samples are kept" }),
  })
  .meta({
    id: "PoolHistory",
    description:
      "The org's pool over time: a sample whenever a fresh read (the pool sampler, or a pool view on a cache miss) found it changed, else at most one a minute.",
  });

export const poolSummariesSchema = z.object({ items: z.array(z.object({ orgId: uuid, ...sample })) }).meta({
  id: "PoolSummaries",
  description: "The newest pool sample of every org the caller may access (orgs never sampled are absent).",
});
