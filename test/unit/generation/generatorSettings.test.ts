import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "../../../src/config/env.ts";
import {
  createPromptGenerator,
  lazyLanguageValidator,
} from "../../../src/generation/createPromptGenerator.ts";
import { GeneratorError } from "../../../src/generation/generatorError.ts";
import { readGeneratorSettings } from "../../../src/generation/generatorSettings.ts";

function misconfiguration(env: Record<string, string>): GeneratorError {
  try {
    readGeneratorSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(GeneratorError);
    expect((error as GeneratorError).kind).toBe("misconfigured");
    expect((error as GeneratorError).retryable).toBe(false);
    return error as GeneratorError;
  }
  throw new Error("expected a misconfiguration");
}

describe("generator settings (read per use)", () => {
  it("defaults to the builtin generator with a 300 s timeout", () => {
    expect(readGeneratorSettings({})).toEqual({ generator: "builtin", model: undefined, timeoutMs: 300_000 });
  });

  it("reads the drs and openai endpoints", () => {
    expect(
      readGeneratorSettings({
        SERENITY_PROMPT_GENERATOR: "drs",
        SERENITY_DRS_URL: "https://drs.example/generate",
        SERENITY_GENERATION_MODEL: "gpt-5.4",
        SERENITY_GENERATION_TIMEOUT_MS: "90000",
      }),
    ).toEqual({
      generator: "drs",
      drsUrl: "https://drs.example/generate",
      model: "gpt-5.4",
      timeoutMs: 90_000,
    });
    expect(
      readGeneratorSettings({
        SERENITY_PROMPT_GENERATOR: "openai",
        SERENITY_OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      }),
    ).toEqual({
      generator: "openai",
      baseUrl: "http://127.0.0.1:11434/v1",
      apiKey: undefined,
      model: undefined,
      timeoutMs: 300_000,
    });
  });

  it("a generator chosen without its URL is a typed misconfiguration, naming the variable only", () => {
    expect(misconfiguration({ SERENITY_PROMPT_GENERATOR: "drs" }).message).toMatch(/^SERENITY_DRS_URL /);
    expect(
      misconfiguration({ SERENITY_PROMPT_GENERATOR: "openai", SERENITY_OPENAI_API_KEY: "sk-x" }).message,
    ).toMatch(/^SERENITY_OPENAI_BASE_URL /);
    expect(misconfiguration({ SERENITY_PROMPT_GENERATOR: "gpt" }).message).toMatch(
      /^SERENITY_PROMPT_GENERATOR /,
    );
    expect(
      misconfiguration({ SERENITY_PROMPT_GENERATOR: "drs", SERENITY_DRS_URL: "not a url" }).message,
    ).toMatch(/^SERENITY_DRS_URL /);
    expect(misconfiguration({ SERENITY_GENERATION_TIMEOUT_MS: "soon" }).message).toMatch(
      /^SERENITY_GENERATION_TIMEOUT_MS /,
    );
    const insecure = misconfiguration({
      SERENITY_PROMPT_GENERATOR: "drs",
      SERENITY_DRS_URL: "http://drs.example",
    });
    expect(insecure.message).toMatch(/^SERENITY_DRS_URL /);
    expect(insecure.message).not.toContain("drs.example");
  });

  it("a per-call override (the preview's generator) wins over SERENITY_PROMPT_GENERATOR", () => {
    expect(readGeneratorSettings({ SERENITY_PROMPT_GENERATOR: "drs" }, "builtin").generator).toBe("builtin");
    expect(() => readGeneratorSettings({}, "openai")).toThrow(GeneratorError);
  });

  it("is read at the moment of use, so a change takes effect without a restart", () => {
    const env: Record<string, string | undefined> = {};
    expect(readGeneratorSettings(env).generator).toBe("builtin");
    env.SERENITY_PROMPT_GENERATOR = "drs";
    env.SERENITY_DRS_URL = "https://drs.example";
    expect(readGeneratorSettings(env).generator).toBe("drs");
  });

  it("builds the chosen generator", () => {
    const deps = { languageValidator: lazyLanguageValidator() };
    expect(createPromptGenerator(readGeneratorSettings({}), deps).name).toBe("builtin");
    expect(
      createPromptGenerator(
        readGeneratorSettings({ SERENITY_PROMPT_GENERATOR: "drs", SERENITY_DRS_URL: "https://drs.example" }),
        deps,
      ).name,
    ).toBe("drs");
  });

  it("a malformed value is also a clear error at boot", () => {
    expect(() => loadConfig({ SERENITY_PROMPT_GENERATOR: "gpt" })).toThrow(ConfigError);
    expect(() => loadConfig({ SERENITY_DRS_URL: "not a url" })).toThrow(/SERENITY_DRS_URL/);
    // A generator without its URL is not a boot error: only using it fails.
    expect(() => loadConfig({ SERENITY_PROMPT_GENERATOR: "drs" })).not.toThrow();
  });
});
