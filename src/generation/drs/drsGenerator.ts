import type { Clock } from "../../domain/clock.ts";
import { failureKindOfStatus, GeneratorError } from "../generatorError.ts";
import { postJson } from "../http/postJson.ts";
import { parseGenerationResponse } from "../parseGenerationResponse.ts";
import type { GenerateOptions, PromptGenerator } from "../promptGenerator.ts";
import type { LanguageValidator } from "../validation/languageValidator.ts";
import { validateCandidates } from "../validation/validationPipeline.ts";
import type { GenerationRequest, GenerationResponse } from "../wire.ts";

/**
 * The `drs` generator (spec/generation.md §4): POSTs the request, exactly the wire shape, to
 * `SERENITY_DRS_URL` and parses the answer (plain or proxy-wrapped). The service validates its
 * own output, but every generator's prompts go through our pipeline too (§7), so a `ship` is
 * re-validated here — our verdict, counts and evidence replace the service's. A `held` or
 * `gate_error` verdict is returned as the service gave it, for the job to classify. Nothing but
 * the request is sent: no authorization header, no credential.
 */

export interface DrsGeneratorOptions {
  url: string;
  timeoutMs: number;
  languageValidator: () => Promise<LanguageValidator>;
  clock?: Clock;
}

export function createDrsGenerator(options: DrsGeneratorOptions): PromptGenerator {
  return {
    name: "drs",
    async generate(request: GenerationRequest, call: GenerateOptions = {}): Promise<GenerationResponse> {
      const answer = await postJson({
        url: options.url,
        body: request,
        timeoutMs: options.timeoutMs,
        signal: call.signal,
        ...(options.clock ? { clock: options.clock } : {}),
      });
      const failure = failureKindOfStatus(answer.status);
      if (failure) {
        throw new GeneratorError(failure, `The DRS answered ${answer.status}.`, { status: answer.status });
      }
      const response = parseGenerationResponse(answer.text);
      // held, gate_error and an empty ship go to the job as the service gave them (an empty ship
      // is PROMPT_GENERATION_EMPTY, which pages; re-validating would turn it into a quiet hold).
      if (response.ship_summary.verdict !== "ship" || response.prompts.length === 0) return response;
      return validateCandidates(response.prompts, request, await options.languageValidator());
    },
  };
}
