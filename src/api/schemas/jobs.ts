import { z } from "zod";

import { acceptedJobSchema } from "../accepted.ts";
import { isoTimestamp, uuid, uuidParam } from "./common.ts";

export const jobParams = z.object({ orgId: uuidParam, brandId: uuidParam, jobId: uuidParam });

export const jobErrorSchema = z
  .object({
    code: z.string(),
    message: z.string().meta({ description: "A fixed, caller-safe sentence for the code." }),
    retryable: z.boolean().meta({ description: "A hint: retrying the operation may succeed." }),
    needsReauth: z.boolean().meta({ description: "Sign in again and POST …/reauth to resume the job." }),
  })
  .meta({ id: "JobError" });

export const jobSchema = z
  .object({
    id: uuid.meta({ description: "The job's id" }),
    type: z.string().meta({ description: "The job's type, e.g. provisionWorkspace" }),
    jobId: uuid.describe("Deprecated: use `id`").meta({ deprecated: true }),
    jobType: z.string().describe("Deprecated: use `type`").meta({ deprecated: true }),
    status: z.enum(["IN_PROGRESS", "COMPLETED", "FAILED"]),
    result: z.record(z.string(), z.unknown()).nullable(),
    error: jobErrorSchema.nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({
    id: "Job",
    description:
      "An asynchronous job. Provisioning jobs report the effective last hop of their requeues and chains under the requested jobId.",
  });

export const jobAccepted = z
  .object({ jobId: uuid, jobType: z.string(), status: z.literal("IN_PROGRESS"), job: acceptedJobSchema })
  .meta({ id: "JobAccepted" });
