import { describe, expect, it } from "vitest";

import {
  GENERATION_JOB_ERROR_MESSAGES,
  generationOutcome,
  isGenuineFailure,
  outcomeOfError,
  outcomeOfResponse,
} from "../../../src/generation/generationOutcome.ts";
import { GeneratorError, type GeneratorFailureKind } from "../../../src/generation/generatorError.ts";
import { generationResponse } from "../../support/generationFixtures.ts";

const response = generationResponse;
const PROMPTS = response({}).prompts;

describe("generation outcome (spec/generation.md §3)", () => {
  it("maps each verdict to the job's outcome", () => {
    expect(outcomeOfResponse(response({}))).toEqual({ kind: "ship", prompts: PROMPTS });
    expect(outcomeOfResponse(response({ verdict: "held", reason: "too few" }))).toEqual({
      kind: "failed",
      code: "PROMPT_GENERATION_HELD",
      pagesOnCall: false,
      reason: "too few",
    });
    expect(
      outcomeOfResponse(response({ verdict: "gate_error", error_category: "retryable", reason: "busy" })),
    ).toEqual({
      kind: "retry",
      reason: "gate-error: busy",
    });
    for (const category of ["terminal", null] as const) {
      expect(outcomeOfResponse(response({ verdict: "gate_error", error_category: category }))).toMatchObject({
        kind: "failed",
        code: "PROMPT_GENERATION_GATE_ERROR",
        pagesOnCall: true,
      });
    }
    expect(outcomeOfResponse(response({ final_count: 0 }, []))).toMatchObject({
      kind: "failed",
      code: "PROMPT_GENERATION_EMPTY",
      pagesOnCall: true,
    });
    expect(outcomeOfResponse(response({ verdict: "maybe" as "ship" }))).toMatchObject({
      kind: "failed",
      code: "GENERATION_TERMINAL",
    });
  });

  it("maps generator failures: retryable kinds retry, the others are GENERATION_TERMINAL", () => {
    const retryable: GeneratorFailureKind[] = [
      "timeout",
      "transport",
      "server_error",
      "rate_limited",
      "aborted",
    ];
    const terminal: GeneratorFailureKind[] = ["rejected", "unparseable", "unknown_verdict", "misconfigured"];
    for (const kind of retryable) {
      expect(outcomeOfError(new GeneratorError(kind, "x"))).toEqual({ kind: "retry", reason: kind });
    }
    for (const kind of terminal) {
      expect(outcomeOfError(new GeneratorError(kind, "x"))).toEqual({
        kind: "failed",
        code: "GENERATION_TERMINAL",
        pagesOnCall: true,
        reason: kind,
      });
    }
    expect(outcomeOfError(new TypeError("bug"))).toMatchObject({
      kind: "failed",
      code: "GENERATION_TERMINAL",
    });
  });

  it("runs a call and classifies how it ended", async () => {
    expect(await generationOutcome(async () => response({}))).toMatchObject({ kind: "ship" });
    expect(
      await generationOutcome(async () => {
        throw new GeneratorError("timeout", "slow");
      }),
    ).toEqual({ kind: "retry", reason: "timeout" });
  });

  it("has a caller-safe sentence for every failure code", () => {
    expect(Object.keys(GENERATION_JOB_ERROR_MESSAGES).sort()).toEqual([
      "GENERATION_TERMINAL",
      "PROMPT_GENERATION_EMPTY",
      "PROMPT_GENERATION_GATE_ERROR",
      "PROMPT_GENERATION_HELD",
    ]);
    for (const sentence of Object.values(GENERATION_JOB_ERROR_MESSAGES))
      expect(sentence).toMatch(/^[A-Z].+\.$/);
  });

  it("counts only genuine failures", () => {
    expect(isGenuineFailure({ response: response({}) })).toBe(false);
    expect(isGenuineFailure({ response: response({ verdict: "held" }) })).toBe(false);
    expect(
      isGenuineFailure({ response: response({ verdict: "gate_error", error_category: "retryable" }) }),
    ).toBe(false);
    expect(isGenuineFailure({ error: new GeneratorError("aborted", "x") })).toBe(false);
    expect(
      isGenuineFailure({ response: response({ verdict: "gate_error", error_category: "terminal" }) }),
    ).toBe(true);
    expect(isGenuineFailure({ response: response({ final_count: 0 }, []) })).toBe(true);
    for (const kind of ["timeout", "transport", "server_error", "unparseable", "misconfigured"] as const) {
      expect(isGenuineFailure({ error: new GeneratorError(kind, "x") })).toBe(true);
    }
  });
});
