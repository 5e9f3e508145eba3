import { type Clock, systemClock } from "../../domain/clock.ts";
import { failureKindOfStatus, GeneratorError } from "../generatorError.ts";
import { type JsonAnswer, postJson } from "../http/postJson.ts";
import type { GenerateOptions, PromptGenerator } from "../promptGenerator.ts";
import type { LanguageValidator } from "../validation/languageValidator.ts";
import { validateCandidates } from "../validation/validationPipeline.ts";
import type { GenerationRequest, GenerationResponse } from "../wire.ts";
import { chatMessages, PROMPTS_JSON_SCHEMA } from "./openaiPrompt.ts";
import { parseChatCompletion } from "./parseChatCompletion.ts";

/**
 * The `openai` generator (spec/generation.md §4): any OpenAI-compatible chat-completions endpoint.
 * It asks for structured output (`response_format: json_schema`); a server that rejects that
 * request (400 or 422) is asked once more with `json_object`, within the same time budget. The
 * prompts then go through the same validation pipeline as the builtin generator's.
 *
 * Plain HTTP (undici, already a dependency) rather than the `openai` package: we need one POST,
 * no retries (the job owns them — the package retries by default), our own timeout on the
 * injected clock, and our own failure classification; the package would add a dependency and an
 * error hierarchy to translate for no gain. The API key is ours (configuration), sent only as the
 * `Authorization` header; the user's credential never reaches this endpoint.
 */

export interface OpenAiGeneratorOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  /** The endpoint's model name; the request's allowlisted `model` when unset. */
  model?: string | undefined;
  timeoutMs: number;
  languageValidator: () => Promise<LanguageValidator>;
  clock?: Clock;
}

type ResponseFormat = "json_schema" | "json_object";

function responseFormat(format: ResponseFormat) {
  return format === "json_schema"
    ? {
        type: "json_schema",
        json_schema: { name: "monitoring_prompts", strict: true, schema: PROMPTS_JSON_SCHEMA },
      }
    : { type: "json_object" };
}

export function createOpenAiGenerator(options: OpenAiGeneratorOptions): PromptGenerator {
  const clock = options.clock ?? systemClock;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};

  return {
    name: "openai",
    async generate(request: GenerationRequest, call: GenerateOptions = {}): Promise<GenerationResponse> {
      const deadline = clock.now().getTime() + options.timeoutMs;
      const ask = (format: ResponseFormat): Promise<JsonAnswer> =>
        postJson({
          url,
          headers,
          body: {
            model: options.model ?? request.model,
            messages: chatMessages(request),
            response_format: responseFormat(format),
          },
          timeoutMs: Math.max(1, deadline - clock.now().getTime()),
          signal: call.signal,
          clock,
        });

      let answer = await ask("json_schema");
      if (answer.status === 400 || answer.status === 422) answer = await ask("json_object");
      const failure = failureKindOfStatus(answer.status);
      if (failure) {
        throw new GeneratorError(failure, `The chat-completions endpoint answered ${answer.status}.`, {
          status: answer.status,
        });
      }
      const candidates = parseChatCompletion(answer.text);
      return validateCandidates(candidates, request, await options.languageValidator());
    },
  };
}
