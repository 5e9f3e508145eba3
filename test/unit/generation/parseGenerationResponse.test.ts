import { describe, expect, it } from "vitest";

import { GeneratorError } from "../../../src/generation/generatorError.ts";
import { parseGenerationResponse } from "../../../src/generation/parseGenerationResponse.ts";
import { DRS_CONTRACT } from "../../support/generationFixtures.ts";

/** The job metadata that corresponds to the fixture's request (spec/generation.md §3). */

describe("response parser", () => {
  it("accepts the fixture's response as an object and as JSON text", () => {
    const parsed = parseGenerationResponse(DRS_CONTRACT.response);
    expect(parsed.prompts).toEqual([
      { prompt: "Quelle creme hydratante convient le mieux aux peaux seches en hiver ?", category: "" },
      {
        prompt: "Comment integrer un serum a la vitamine C dans une routine de soin du visage ?",
        category: "",
      },
    ]);
    expect(parsed.ship_summary).toEqual({
      generated: 2,
      hard_validated: 2,
      guardrail_dropped: 0,
      language_rejected: 0,
      quality_downranked: 0,
      final_count: 2,
      verdict: "ship",
      error_category: null,
      reason: "ok",
    });
    expect(parsed.language_evidence[0]).toEqual({
      detected_language: "fr",
      language_confidence: 0.8123,
      language_validation_passed: true,
    });
    expect(parseGenerationResponse(JSON.stringify(DRS_CONTRACT.response))).toEqual(parsed);
    // The service's own shape (free-text categories) reads too.
    expect(parseGenerationResponse(DRS_CONTRACT.service_response).prompts[0]?.category).toBe(
      "soins hydratants",
    );
  });

  it("accepts the proxy-wrapped form {statusCode, body: '<json>'}", () => {
    const wrapped = { statusCode: 200, body: JSON.stringify(DRS_CONTRACT.response) };
    expect(parseGenerationResponse(wrapped)).toEqual(parseGenerationResponse(DRS_CONTRACT.response));
    expect(parseGenerationResponse(JSON.stringify(wrapped))).toEqual(
      parseGenerationResponse(DRS_CONTRACT.response),
    );
  });

  it("classifies a wrapped 5xx as retryable and a wrapped 4xx as terminal", () => {
    const failure = (payload: unknown) => {
      try {
        parseGenerationResponse(payload);
      } catch (error) {
        return error as GeneratorError;
      }
      throw new Error("expected a failure");
    };
    const server = failure({ statusCode: 503, body: "{}" });
    expect(server).toBeInstanceOf(GeneratorError);
    expect([server.kind, server.retryable, server.status]).toEqual(["server_error", true, 503]);
    const refused = failure({ statusCode: 400, body: '{"error":"bad"}' });
    expect([refused.kind, refused.retryable]).toEqual(["rejected", false]);
  });

  it("rejects everything else with a typed terminal error", () => {
    const cases: [unknown, string][] = [
      ["not json at all", "unparseable"],
      [{ statusCode: 200, body: "<html>gateway</html>" }, "unparseable"],
      [{ prompts: [] }, "unparseable"],
      [[], "unparseable"],
      [null, "unparseable"],
      [{ ...(DRS_CONTRACT.response as object), prompts: [{ category: "x" }] }, "unparseable"],
      [
        {
          ...(DRS_CONTRACT.response as object),
          ship_summary: {
            ...(DRS_CONTRACT.response as { ship_summary: object }).ship_summary,
            generated: -1,
          },
        },
        "unparseable",
      ],
      [
        {
          ...(DRS_CONTRACT.response as object),
          ship_summary: {
            ...(DRS_CONTRACT.response as { ship_summary: object }).ship_summary,
            verdict: "maybe",
          },
        },
        "unknown_verdict",
      ],
    ];
    for (const [payload, kind] of cases) {
      let caught: unknown;
      try {
        parseGenerationResponse(payload);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(payload)).toBeInstanceOf(GeneratorError);
      expect((caught as GeneratorError).kind).toBe(kind);
      expect((caught as GeneratorError).retryable).toBe(false);
    }
  });

  it("reads an unknown error_category as terminal and a null category or reason as empty", () => {
    const summary = (DRS_CONTRACT.response as { ship_summary: object }).ship_summary;
    const parsed = parseGenerationResponse({
      prompts: [{ prompt: "Quelle marque choisir ?", category: null }],
      ship_summary: { ...summary, verdict: "gate_error", error_category: "weird", reason: null },
    });
    expect(parsed.prompts[0]?.category).toBe("");
    expect(parsed.language_evidence).toEqual([]);
    expect(parsed.ship_summary.error_category).toBe("terminal");
    expect(parsed.ship_summary.reason).toBe("");
  });
});
