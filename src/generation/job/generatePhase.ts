import type { Db } from "../../db/database.ts";
import { findOrgById } from "../../db/orgs/findOrgById.ts";
import type { JobContext } from "../../jobs/handler.ts";
import { JobError } from "../../jobs/jobError.ts";
import { generationOutcome } from "../generationOutcome.ts";
import type { PromptGenerator } from "../promptGenerator.ts";
import { toGenerationRequest } from "../toGenerationRequest.ts";
import type { GeneratedPrompt } from "../wire.ts";
import { GENERATION_RETRY_CODES } from "./generationJobErrors.ts";
import type { GenerationJobState } from "./generationJobState.ts";

export interface GeneratePhaseDeps {
  db: Db;
  /** The generator for this call, built from the settings read now (a bad setting throws GeneratorError). */
  generator(): { generator: PromptGenerator; model: string | undefined };
}

/**
 * Phase 1 (spec/generation.md §3): the checkpointed batch when there is one — a retry, a
 * redelivery or a resumed reauth never calls the generator again — else one generator call whose
 * shipped prompts are checkpointed before anything is written upstream. No credential is read
 * here: the request is built from the metadata's allowlisted fields only.
 */
export async function generatePhase(
  deps: GeneratePhaseDeps,
  ctx: JobContext<GenerationJobState>,
): Promise<GeneratedPrompt[]> {
  const saved = ctx.metadata.generatedBatch;
  if (saved) return saved.prompts;
  const org = await findOrgById(deps.db, ctx.metadata.orgId);
  const outcome = await generationOutcome(async () => {
    const { generator, model } = deps.generator();
    const request = toGenerationRequest(ctx.metadata, { imsOrgId: org?.externalId, model }, (warning) =>
      ctx.logger.warn(warning, "unknown generation model; using the default"),
    );
    return generator.generate(request, { signal: ctx.signal });
  });
  switch (outcome.kind) {
    case "retry":
      ctx.logger.warn({ reason: outcome.reason }, "prompt generation will be retried");
      throw new JobError(GENERATION_RETRY_CODES.generator, { retryable: true });
    case "failed":
      ctx.logger[outcome.pagesOnCall ? "error" : "info"](
        { code: outcome.code, reason: outcome.reason, pagesOnCall: outcome.pagesOnCall },
        "prompt generation ended without prompts",
      );
      throw new JobError(outcome.code, { retryable: false });
    case "ship": {
      const prompts = outcome.prompts.map(({ prompt, category }) => ({ prompt, category }));
      await ctx.saveCheckpoint({ generatedBatch: { prompts } });
      ctx.logger.info({ prompts: prompts.length }, "generated prompts checkpointed");
      return prompts;
    }
  }
}
