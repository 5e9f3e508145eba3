import { z } from "zod";

/**
 * The prompt generator's variables (SPEC §6, spec/generation.md §4). They are read per use (the
 * generation job and the preview read them on every call, so a change needs no restart); `env.ts`
 * also validates them at start, so a malformed value is a clear error at boot. A generator
 * chosen without its URL is not a boot error: using it fails that generation as misconfigured.
 */

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** An http(s) URL; plain http only on loopback (a generator request names the org and brand). */
const generatorUrl = z.url({ protocol: /^https?$/ }).refine((value) => {
  // zod runs refinements after a failed check too: an unparseable value is z.url's to report.
  if (!URL.canParse(value)) return true;
  const url = new URL(value);
  return url.protocol === "https:" || LOOPBACK_HOSTS.has(url.hostname);
}, "must use https (plain http is accepted only on loopback)");

export const GENERATOR_ENV_SHAPE = {
  SERENITY_PROMPT_GENERATOR: z.enum(["builtin", "drs", "openai"]).optional(),
  SERENITY_DRS_URL: generatorUrl.optional(),
  SERENITY_OPENAI_BASE_URL: generatorUrl.optional(),
  SERENITY_OPENAI_API_KEY: z.string().min(1).optional(),
  SERENITY_GENERATION_MODEL: z.string().min(1).optional(),
  /** The generator call's timeout (default 300 s); the job's handler timeout must exceed it. */
  SERENITY_GENERATION_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** Generator runs (previews and jobs together) per org per hour; 0 = no limit (default 60). */
  SERENITY_GENERATION_RATE_PER_ORG: z.coerce.number().int().nonnegative().optional(),
};

export const DEFAULT_GENERATION_TIMEOUT_MS = 300_000;

export const generatorEnvSchema = z.object(GENERATOR_ENV_SHAPE);
export type GeneratorEnv = z.infer<typeof generatorEnvSchema>;
