import { z } from "zod";

import { acceptedJobSchema } from "../accepted.ts";
import { isoTimestamp, uuid } from "./common.ts";
import { jobErrorSchema } from "./jobError.ts";

/** `promptGeneration` of a create or activate response (spec/generation.md §2 step 5). */
export const promptGenerationSchema = z
  .object({
    jobId: uuid,
    status: z.literal("provisioning"),
    reused: z.boolean().meta({
      description: "True when an existing job was handed back (still running, or waiting for reauth).",
    }),
  })
  .meta({
    id: "PromptGeneration",
    description:
      "The generation job of a market; present only when prompt generation is on and was requested. Poll it at `…/serenity/markets/generation/jobs/{jobId}`.",
  });

/** What a COMPLETED generation job stores (generation/job/generationJobState.ts, spec/generation.md §3). */
export const generationJobResultSchema = z
  .object({
    promptCount: z.number().int().meta({ description: "Prompts written to the market's project" }),
    projectId: z.string(),
    published: z.boolean(),
    verdict: z.string().meta({ description: "`ship`: the prompts passed the gates and are live" }),
  })
  .meta({ id: "GenerationJobResult" });

export const generationJobSchema = z
  .object({
    id: uuid.meta({ description: "The job's id" }),
    type: z.literal("generateSemrushMarket"),
    jobId: uuid.describe("Deprecated: use `id`").meta({ deprecated: true }),
    jobType: z.literal("generateSemrushMarket").describe("Deprecated: use `type`").meta({ deprecated: true }),
    status: z.enum(["IN_PROGRESS", "COMPLETED", "FAILED"]),
    result: generationJobResultSchema.nullable(),
    error: jobErrorSchema.nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({
    id: "GenerationJob",
    description:
      "A market's prompt generation. IN_PROGRESS: generating; COMPLETED: live; FAILED with PROMPT_GENERATION_HELD: held; FAILED with needsReauth: sign in again and POST …/reauth; any other FAILED: failed.",
  });

export const generationJobAccepted = z
  .object({
    jobId: uuid,
    jobType: z.literal("generateSemrushMarket"),
    status: z.literal("IN_PROGRESS"),
    job: acceptedJobSchema,
  })
  .meta({ id: "GenerationJobAccepted" });
