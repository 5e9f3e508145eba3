import { GeneratorError } from "./generatorError.ts";
import type { GeneratedPrompt, GenerationResponse } from "./wire.ts";

/**
 * What a generation job does with a generator's answer or failure (spec/generation.md §3). Pure:
 * the job handler maps `retry` to a retryable JobError and `failed` to a terminal one with `code`.
 */

export const GENERATION_FAILURE_CODES = {
  held: "PROMPT_GENERATION_HELD",
  gateError: "PROMPT_GENERATION_GATE_ERROR",
  empty: "PROMPT_GENERATION_EMPTY",
  terminal: "GENERATION_TERMINAL",
} as const;
export type GenerationFailureCode = (typeof GENERATION_FAILURE_CODES)[keyof typeof GENERATION_FAILURE_CODES];

/** The caller-safe sentences of these codes, for the job's error registry (`errorMessages`). */
export const GENERATION_JOB_ERROR_MESSAGES: Readonly<Record<GenerationFailureCode, string>> = {
  PROMPT_GENERATION_HELD:
    "The generated prompts did not meet the quality bar, so none were written; try again or preview the set.",
  PROMPT_GENERATION_GATE_ERROR: "The prompt generator reported an error, so no prompts were written.",
  PROMPT_GENERATION_EMPTY: "The prompt generator returned no prompts, so none were written.",
  GENERATION_TERMINAL: "Prompt generation failed and will not be retried.",
};

export type GenerationOutcome =
  /** Write these prompts (at least one). */
  | { kind: "ship"; prompts: GeneratedPrompt[] }
  /** Leave the job IN_PROGRESS for a redelivery with backoff. */
  | { kind: "retry"; reason: string }
  /** FAILED with `code`; `pagesOnCall` as in the table of §3. */
  | { kind: "failed"; code: GenerationFailureCode; pagesOnCall: boolean; reason: string };

export function outcomeOfResponse(response: GenerationResponse): GenerationOutcome {
  const { verdict, error_category: category, reason } = response.ship_summary;
  switch (verdict) {
    case "ship":
      return response.prompts.length > 0
        ? { kind: "ship", prompts: response.prompts }
        : {
            kind: "failed",
            code: GENERATION_FAILURE_CODES.empty,
            pagesOnCall: true,
            reason: "ship-without-prompts",
          };
    case "held":
      return { kind: "failed", code: GENERATION_FAILURE_CODES.held, pagesOnCall: false, reason };
    case "gate_error":
      return category === "retryable"
        ? { kind: "retry", reason: `gate-error: ${reason}` }
        : { kind: "failed", code: GENERATION_FAILURE_CODES.gateError, pagesOnCall: true, reason };
    default:
      // The parser refuses unknown verdicts; this guards a response built some other way.
      return {
        kind: "failed",
        code: GENERATION_FAILURE_CODES.terminal,
        pagesOnCall: true,
        reason: "unknown-verdict",
      };
  }
}

export function outcomeOfError(error: unknown): GenerationOutcome {
  if (error instanceof GeneratorError) {
    return error.retryable
      ? { kind: "retry", reason: error.kind }
      : { kind: "failed", code: GENERATION_FAILURE_CODES.terminal, pagesOnCall: true, reason: error.kind };
  }
  // Not a classified generator failure: a defect on our side, which a retry would only repeat.
  return {
    kind: "failed",
    code: GENERATION_FAILURE_CODES.terminal,
    pagesOnCall: true,
    reason: "unexpected-error",
  };
}

/** Runs a generator call and classifies how it ended. */
export async function generationOutcome(call: () => Promise<GenerationResponse>): Promise<GenerationOutcome> {
  let response: GenerationResponse;
  try {
    response = await call();
  } catch (error) {
    return outcomeOfError(error);
  }
  return outcomeOfResponse(response);
}

/**
 * Whether a call's end counts in `serenity_generation_failures_total`: genuine failures only —
 * transport, timeout, an HTTP failure of the service, an unreadable answer, a misconfiguration,
 * a terminal gate error, an empty ship. Never `ship`, `held`, a retryable gate error, or the
 * caller's own abort.
 */
export function isGenuineFailure(result: { response: GenerationResponse } | { error: unknown }): boolean {
  if ("error" in result) return !(result.error instanceof GeneratorError && result.error.kind === "aborted");
  const outcome = outcomeOfResponse(result.response);
  return outcome.kind === "failed" && outcome.pagesOnCall;
}
