import { z } from "zod";

import { acceptedJobSchema } from "../accepted.ts";
import { isoTimestamp, uuid, uuidParam } from "./common.ts";
import { jobErrorSchema } from "./jobError.ts";
import {
  activationResult,
  createMarketResult,
  deleteBrandResult,
  generationJobResultSchema,
  propagateBrandIdentityResult,
  provisionWorkspaceResult,
} from "./jobResults.ts";

export { jobErrorSchema };

export const jobParams = z.object({ orgId: uuidParam, brandId: uuidParam, jobId: uuidParam });

const jobStatus = z.enum(["IN_PROGRESS", "COMPLETED", "FAILED"]);

/** One job type's shape: `type` names it, `result` (COMPLETED only, else null) is that type's. */
function jobOfType(type: z.ZodType<string>, result: z.ZodType, id: string) {
  return z
    .object({
      id: uuid.meta({ description: "The job's id" }),
      type,
      jobId: uuid.describe("Deprecated: use `id`").meta({ deprecated: true }),
      jobType: type.describe("Deprecated: use `type`").meta({ deprecated: true }),
      status: jobStatus,
      result: result.nullable().meta({ description: "The COMPLETED job's result, else null" }),
      error: jobErrorSchema.nullable(),
      createdAt: isoTimestamp,
      updatedAt: isoTimestamp,
    })
    .meta({ id });
}

/**
 * The poll's `Job`: a union discriminated by `type`, each job type with its typed `result`, and an
 * open fallback for a type without one. Typed variants come first: the serializer answers with the
 * first that parses, so a result a typed schema does not describe (a record stored by an older
 * release) falls through to the open shape instead of failing the answer.
 */
export const jobSchema = z
  .union([
    jobOfType(z.literal("provisionWorkspace"), provisionWorkspaceResult, "ProvisionWorkspaceJob"),
    jobOfType(z.literal("createSemrushMarket"), createMarketResult, "CreateSemrushMarketJob"),
    jobOfType(z.enum(["activateBrand", "activateMarkets"]), activationResult, "ActivationJob"),
    jobOfType(z.literal("generateSemrushMarket"), generationJobResultSchema, "GenerateSemrushMarketJob"),
    jobOfType(z.literal("deleteBrand"), deleteBrandResult, "DeleteBrandJob"),
    jobOfType(z.literal("propagateBrandIdentity"), propagateBrandIdentityResult, "PropagateBrandIdentityJob"),
    jobOfType(
      z.string().meta({ description: "The job's type, e.g. provisionWorkspace" }),
      z.record(z.string(), z.unknown()),
      "OtherJob",
    ),
  ])
  .meta({
    id: "Job",
    description:
      "An asynchronous job, discriminated by `type`: each job type has its own `result` schema (OtherJob: a type without one). Provisioning jobs report the effective last hop of their requeues and chains under the requested jobId.",
  });

export const jobAccepted = z
  .object({ jobId: uuid, jobType: z.string(), status: z.literal("IN_PROGRESS"), job: acceptedJobSchema })
  .meta({ id: "JobAccepted" });
