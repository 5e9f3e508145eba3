import type { FlagSource } from "../config/flags.ts";
import { generatorEnvSchema } from "../config/generatorEnv.ts";
import { countApiRequest } from "../db/apiRateLimits/countApiRequest.ts";
import type { DbExecutor } from "../db/database.ts";

/** The window of an org's generation rate (issue 39, item 6). */
export const GENERATION_RATE_WINDOW_MS = 60 * 60_000;
/** Generations (previews and jobs together) per org per window when SERENITY_GENERATION_RATE_PER_ORG is unset. */
export const DEFAULT_GENERATION_RATE_PER_ORG = 60;

/** The org's limit, read per use (0 = no limit); a malformed value falls back to the default. */
export function generationRateOf(env: FlagSource): number {
  const parsed = generatorEnvSchema.shape.SERENITY_GENERATION_RATE_PER_ORG.safeParse(
    env.SERENITY_GENERATION_RATE_PER_ORG?.trim() || undefined,
  );
  return (parsed.success ? parsed.data : undefined) ?? DEFAULT_GENERATION_RATE_PER_ORG;
}

export interface GenerationCount {
  /** Past the limit: this generation must not run. */
  over: boolean;
  /** Seconds until the window ends (the `Retry-After` of a refusal). */
  retryAfterSeconds: number;
}

/**
 * Counts one generator run of `orgId` — a preview, or a generation job produced — in the org's
 * hourly window, in the counter table every process shares (`api_rate_limits`, key
 * `generation:<orgId>`, on the database's clock). Previews past the limit are refused 429
 * `rateLimited`; jobs are counted, not refused (each needs a new market, which the pool bounds), so
 * a burst of onboardings leaves fewer previews for the hour.
 */
export async function countGeneration(
  db: DbExecutor,
  orgId: string,
  env: FlagSource,
): Promise<GenerationCount> {
  const limit = generationRateOf(env);
  if (limit === 0) return { over: false, retryAfterSeconds: 0 };
  const counted = await countApiRequest(db, {
    key: `generation:${orgId}`,
    windowMs: GENERATION_RATE_WINDOW_MS,
  });
  return { over: counted.count > limit, retryAfterSeconds: Math.max(1, Math.ceil(counted.ttlMs / 1000)) };
}
