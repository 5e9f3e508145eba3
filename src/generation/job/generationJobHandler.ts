import type { FlagSource } from "../../config/flags.ts";
import { DEFAULT_GENERATION_TIMEOUT_MS, generatorEnvSchema } from "../../config/generatorEnv.ts";
import type { Clock } from "../../domain/clock.ts";
import { defineJobHandler } from "../../jobs/handler.ts";
import type { EventBus } from "../../observability/events.ts";
import { createPromptGenerator, type GeneratorDeps } from "../createPromptGenerator.ts";
import { GENERATE_MARKET_PROMPTS_JOB, GENERATE_MARKET_PROMPTS_PUBLIC_TYPE } from "../generationJobType.ts";
import { readGeneratorSettings } from "../generatorSettings.ts";
import { instrumentGenerator } from "../instrumentedGenerator.ts";
import { generatePhase } from "./generatePhase.ts";
import { GENERATION_JOB_MESSAGES } from "./generationJobErrors.ts";
import { type GenerationJobResult, generationJobStateSchema } from "./generationJobState.ts";
import { writeAndPublish, type WritePhaseDeps } from "./writePhase.ts";

/** The write phase's budget beside the generator's timeout (spec/generation.md §3 "timeouts nest"). */
export const WRITE_BUDGET_MS = 120_000;
export const GENERATION_MAX_ATTEMPTS = 5;

export interface GenerationJobDeps extends WritePhaseDeps {
  events: EventBus;
  clock: Clock;
  languageValidator: GeneratorDeps["languageValidator"];
  /** Where the generator settings are read, per job; default process.env. */
  env?: FlagSource;
}

/** The generator timeout as configured at registration (a bad value falls back to the default). */
function generatorTimeoutMs(env: FlagSource): number {
  const parsed = generatorEnvSchema.shape.SERENITY_GENERATION_TIMEOUT_MS.safeParse(
    env.SERENITY_GENERATION_TIMEOUT_MS,
  );
  return (parsed.success ? parsed.data : undefined) ?? DEFAULT_GENERATION_TIMEOUT_MS;
}

/**
 * `generate-market-prompts` (public `generateSemrushMarket`, spec/generation.md §3): generate
 * (checkpointed before any upstream write), exchange the credential, write under the allocation
 * guard, publish. Timeouts nest: lease TTL > handler timeout = generator timeout + write budget.
 * Retryable failures are redelivered with the runner's backoff (1 s, 2 s, 4 s…) up to five
 * deliveries; terminal ones fail the job with their code, and the runner invalidates its credential.
 */
export function generationJobHandler(deps: GenerationJobDeps) {
  const env = deps.env ?? process.env;
  const timeoutMs = generatorTimeoutMs(env) + WRITE_BUDGET_MS;
  return defineJobHandler({
    type: GENERATE_MARKET_PROMPTS_JOB,
    publicType: GENERATE_MARKET_PROMPTS_PUBLIC_TYPE,
    timeoutMs,
    leaseTtlMs: timeoutMs + 60_000,
    maxAttempts: GENERATION_MAX_ATTEMPTS,
    errorMessages: GENERATION_JOB_MESSAGES,
    metadataSchema: generationJobStateSchema,
    async handle(ctx): Promise<GenerationJobResult> {
      const prompts = await generatePhase(
        {
          db: deps.db,
          generator: () => {
            const settings = readGeneratorSettings(env);
            const generator = createPromptGenerator(settings, {
              languageValidator: deps.languageValidator,
              clock: deps.clock,
            });
            return { generator: instrumentGenerator(generator, deps.events), model: settings.model };
          },
        },
        ctx,
      );
      // After generation: a slow generator never races a short-lived token.
      const bearer = await ctx.credential();
      const written = await writeAndPublish(deps, ctx, bearer, prompts);
      return {
        promptCount: written.promptCount,
        projectId: written.projectId,
        published: true,
        verdict: "ship",
      };
    },
  });
}
