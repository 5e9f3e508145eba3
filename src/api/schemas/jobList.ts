import { z } from "zod";

import { pageQueryFields } from "../paging.ts";
import { isoTimestamp, uuid, uuidParam } from "./common.ts";
import { jobErrorSchema } from "./jobError.ts";

export const orgJobParams = z.object({ orgId: uuidParam, jobId: uuidParam });

const jobStatus = z.enum(["IN_PROGRESS", "COMPLETED", "FAILED"]);

export const jobListQuery = z.strictObject({
  status: z
    .enum(["IN_PROGRESS", "COMPLETED", "FAILED"], {
      message: "status must be IN_PROGRESS, COMPLETED or FAILED",
    })
    .optional(),
  type: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "must be a job type such as provisionWorkspace")
    .optional()
    .meta({ description: "A public job type, e.g. provisionWorkspace" }),
  brandId: uuidParam.optional(),
  ...pageQueryFields(),
});

const summaryFields = {
  id: uuid.meta({ description: "The job's id" }),
  type: z.string().meta({ description: "The job's type, e.g. provisionWorkspace" }),
  jobId: uuid.describe("Deprecated: use `id`").meta({ deprecated: true }),
  jobType: z.string().describe("Deprecated: use `type`").meta({ deprecated: true }),
  brandId: uuid.nullable(),
  status: jobStatus.meta({ description: "What a poll of this job reports (the effective last hop)" }),
  error: jobErrorSchema.nullable(),
  stuck: z.boolean().meta({
    description:
      "IN_PROGRESS and untouched for the stall grace (SERENITY_JOB_STALL_GRACE_MS): its lease lapsed, or it has no lease and has not moved",
  }),
  hops: z
    .number()
    .int()
    .meta({ description: "Records in the job's requeue/chain lineage (1 = never handed off)" }),
  market: z.object({ geoTargetId: z.number().int(), languageCode: z.string() }).nullable().meta({
    description:
      "The market the job works on (prompt generation, market creation), else null: how a client finds a market's generation job",
  }),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
};

export const jobSummarySchema = z.object(summaryFields).meta({
  id: "JobSummary",
  description:
    "A job of an org's list: the poll's fields (no metadata, result or credential), its brand, its lineage length, and a stuck hint.",
});

export const jobListPageSchema = z
  .object({
    items: z.array(jobSummarySchema),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next (older) page" }),
  })
  .meta({ id: "JobListPage" });

export const jobTimelineSchema = z
  .object({
    job: jobSummarySchema,
    hops: z.array(
      z.object({
        id: uuid.meta({ description: "The hop's job id" }),
        type: z.string().meta({ description: "The hop's job type" }),
        jobId: uuid.describe("Deprecated: use `id`").meta({ deprecated: true }),
        jobType: z.string().describe("Deprecated: use `type`").meta({ deprecated: true }),
        via: z.enum(["start", "requeue", "chain"]).meta({
          description:
            "How this hop came to be: the job's first record, or a requeue or chain of the previous hop",
        }),
        status: jobStatus,
        error: jobErrorSchema.nullable(),
        attempts: z.number().int().meta({ description: "Deliveries that worked on this hop" }),
        stuck: z.boolean(),
        createdAt: isoTimestamp,
        updatedAt: isoTimestamp,
      }),
    ),
    truncated: z.boolean().meta({ description: "More hops exist than are shown (the first 200 are)" }),
  })
  .meta({ id: "JobTimeline" });
