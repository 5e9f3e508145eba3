import { z } from "zod";

import { GENERATOR_NAMES } from "../../generation/promptGenerator.ts";
import { GENERATION_VERDICTS, PROMPT_CATEGORIES } from "../../generation/wire.ts";

export const promptPreviewBody = z
  .strictObject({
    count: z
      .number({ message: "count must be an integer from 1 to 100" })
      .int("count must be an integer from 1 to 100")
      .min(1, "count must be an integer from 1 to 100")
      .max(100, "count must be an integer from 1 to 100")
      .optional()
      .meta({
        description:
          "How many prompts to ask for; default 50, as a generation job; above 50 only for an admin",
      }),
    generator: z
      .enum(GENERATOR_NAMES, { message: "generator must be builtin, drs or openai" })
      .optional()
      .meta({
        description:
          "The generator for this preview (admins only: an operator decision); default `SERENITY_PROMPT_GENERATOR`, else builtin",
      }),
  })
  // A body-less POST previews with the defaults (Fastify hands the schema `null`).
  .nullish();

const count = z.number().int().nonnegative();

export const promptPreviewSchema = z
  .object({
    generator: z.enum(GENERATOR_NAMES),
    prompts: z.array(
      z.object({
        text: z.string(),
        category: z.enum(PROMPT_CATEGORIES),
        type: z.enum(["branded", "non-branded"]),
        topic: z.string().nullable().meta({ description: "The seed topic the prompt is grounded in" }),
      }),
    ),
    summary: z
      .object({
        generated: count,
        hard_validated: count,
        guardrail_dropped: count,
        language_rejected: count,
        quality_downranked: count,
        final_count: count,
        verdict: z.enum(GENERATION_VERDICTS),
        error_category: z.enum(["retryable", "terminal"]).nullable(),
        reason: z.string(),
      })
      .meta({
        description: "The validation pipeline's counts per stage and its verdict (spec/generation.md §7)",
      }),
  })
  .meta({ id: "PromptPreview" });
