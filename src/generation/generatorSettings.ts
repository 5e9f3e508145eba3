import type { FlagSource } from "../config/flags.ts";
import {
  DEFAULT_GENERATION_TIMEOUT_MS,
  type GeneratorEnv,
  generatorEnvSchema,
} from "../config/generatorEnv.ts";
import { GeneratorError } from "./generatorError.ts";
import { type GeneratorName, isGeneratorName } from "./promptGenerator.ts";

/**
 * The generator settings, read from the environment at the moment of use (SPEC §6: never cached
 * at boot). A bad value, or a generator chosen without its endpoint, is a `GeneratorError`
 * `misconfigured` (terminal: GENERATION_TERMINAL for a job, an error for a preview), never a crash.
 * Messages name the variable, never its value (the API key is one of them).
 */

export type GeneratorSettings =
  | { generator: "builtin"; model: string | undefined; timeoutMs: number }
  | { generator: "drs"; drsUrl: string; model: string | undefined; timeoutMs: number }
  | {
      generator: "openai";
      baseUrl: string;
      apiKey: string | undefined;
      model: string | undefined;
      timeoutMs: number;
    };

function misconfigured(variable: string, problem: string): GeneratorError {
  return new GeneratorError("misconfigured", `${variable} ${problem}`);
}

function parseEnv(env: FlagSource): GeneratorEnv {
  const present = Object.fromEntries(
    Object.keys(generatorEnvSchema.shape)
      .map((name) => [name, env[name]?.trim()] as const)
      .filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = generatorEnvSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const variable = String(parsed.error.issues[0]?.path[0] ?? "the generator configuration");
  throw misconfigured(variable, "is invalid");
}

/**
 * @param override a generator chosen for this call (the preview's `generator`), else
 *   SERENITY_PROMPT_GENERATOR, else `builtin`.
 */
export function readGeneratorSettings(
  env: FlagSource = process.env,
  override?: GeneratorName,
): GeneratorSettings {
  const raw = parseEnv(env);
  const generator = override ?? raw.SERENITY_PROMPT_GENERATOR ?? "builtin";
  if (!isGeneratorName(generator))
    throw misconfigured("SERENITY_PROMPT_GENERATOR", "is not a known generator");
  const common = {
    model: raw.SERENITY_GENERATION_MODEL,
    timeoutMs: raw.SERENITY_GENERATION_TIMEOUT_MS ?? DEFAULT_GENERATION_TIMEOUT_MS,
  };
  switch (generator) {
    case "builtin":
      return { generator, ...common };
    case "drs":
      if (!raw.SERENITY_DRS_URL) throw misconfigured("SERENITY_DRS_URL", "is required for the drs generator");
      return { generator, drsUrl: raw.SERENITY_DRS_URL, ...common };
    case "openai":
      if (!raw.SERENITY_OPENAI_BASE_URL) {
        throw misconfigured("SERENITY_OPENAI_BASE_URL", "is required for the openai generator");
      }
      return {
        generator,
        baseUrl: raw.SERENITY_OPENAI_BASE_URL,
        apiKey: raw.SERENITY_OPENAI_API_KEY,
        ...common,
      };
  }
}
