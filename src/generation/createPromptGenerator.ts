import type { Clock } from "../domain/clock.ts";
import { createBuiltinGenerator } from "./builtin/builtinGenerator.ts";
import { createDrsGenerator } from "./drs/drsGenerator.ts";
import type { GeneratorSettings } from "./generatorSettings.ts";
import { createOpenAiGenerator } from "./openai/openaiGenerator.ts";
import type { PromptGenerator } from "./promptGenerator.ts";
import { createLanguageValidator, type LanguageValidator } from "./validation/languageValidator.ts";

/** What every generator needs besides its settings. */
export interface GeneratorDeps {
  /** Shared by the generators of a process: see `lazyLanguageValidator`. */
  languageValidator: () => Promise<LanguageValidator>;
  clock?: Clock;
}

/**
 * One validator for a process, created on first use (eld's database is large; a process that never
 * validates never loads it). Its eld instances are private to it (see languageValidator.ts).
 */
export function lazyLanguageValidator(): () => Promise<LanguageValidator> {
  let validator: Promise<LanguageValidator> | undefined;
  return () => {
    validator ??= createLanguageValidator();
    return validator;
  };
}

export function createPromptGenerator(settings: GeneratorSettings, deps: GeneratorDeps): PromptGenerator {
  const clock = deps.clock ? { clock: deps.clock } : {};
  switch (settings.generator) {
    case "builtin":
      return createBuiltinGenerator({ languageValidator: deps.languageValidator });
    case "drs":
      return createDrsGenerator({
        url: settings.drsUrl,
        timeoutMs: settings.timeoutMs,
        languageValidator: deps.languageValidator,
        ...clock,
      });
    case "openai":
      return createOpenAiGenerator({
        baseUrl: settings.baseUrl,
        apiKey: settings.apiKey,
        model: settings.model,
        timeoutMs: settings.timeoutMs,
        languageValidator: deps.languageValidator,
        ...clock,
      });
  }
}
