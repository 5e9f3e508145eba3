import type { FastifyReply } from "fastify";
import { z } from "zod";

import { uuid } from "./schemas/common.ts";

/**
 * The one 202 of the API (spec/api.md §6, docs/decisions/0037): the work was accepted and a job
 * does the rest. Every 202 answers with a `Location` header naming the one route that polls the
 * job, and a `job` object saying the same in the body. A route that accepts work calls `accepted`
 * and spreads `job` into its body (beside any fields it kept from earlier releases).
 */
export type JobFamily = "job" | "generation" | "org";

export const acceptedJobSchema = z
  .object({
    id: uuid.describe("The job's id: poll it at `location`"),
    type: z.string().describe("The job's public type, e.g. provisionWorkspace, generateSemrushMarket"),
    status: z.literal("IN_PROGRESS"),
    location: z.string().describe("The route that polls this job (also the `Location` header)"),
  })
  .meta({ id: "AcceptedJob", description: "The job a 202 started: where and how to follow it." });

export type AcceptedJob = z.output<typeof acceptedJobSchema>;

/**
 * The one route that polls a job of each family. `org`: a job that outlives its brand (a brand's
 * delete), polled at the org's job timeline, since every route under a deleted brand is 404.
 */
export function jobLocation(
  family: JobFamily,
  ids: { orgId: string; brandId: string; jobId: string },
): string {
  if (family === "org") return `/v2/orgs/${ids.orgId}/serenity/jobs/${ids.jobId}/timeline`;
  const brand = `/v2/orgs/${ids.orgId}/brands/${ids.brandId}/serenity`;
  return family === "generation"
    ? `${brand}/markets/generation/jobs/${ids.jobId}`
    : `${brand}/jobs/${ids.jobId}`;
}

/** Sets the 202 and its `Location`; returns the body's `job`. */
export function accepted(
  reply: FastifyReply,
  job: { family: JobFamily; orgId: string; brandId: string; jobId: string; jobType: string },
): { job: AcceptedJob } {
  const location = jobLocation(job.family, job);
  void reply.status(202).header("location", location);
  return { job: { id: job.jobId, type: job.jobType, status: "IN_PROGRESS", location } };
}
