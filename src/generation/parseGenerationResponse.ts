import { z } from "zod";

import { failureKindOfStatus, GeneratorError } from "./generatorError.ts";
import {
  GENERATION_VERDICTS,
  type GenerationResponse,
  type GenerationVerdict,
  type ShipSummary,
} from "./wire.ts";

/**
 * Reads a generator service's answer (spec/generation.md §4): the contract's response object, the
 * same object as JSON text, or the proxy-wrapped form `{statusCode, body: "<json>"}` that a
 * serverless front end returns. Anything else is a terminal `GeneratorError` (`unparseable`, or
 * `unknown_verdict` when only the verdict is foreign); a wrapped non-2xx status is classified
 * like an HTTP status (a wrapped 5xx is retryable).
 */

const count = z.number().int().nonnegative();

const promptWire = z.looseObject({
  prompt: z.string(),
  // The DRS sends "" or its own labels; absent or null reads as "".
  category: z
    .string()
    .nullish()
    .transform((value) => value ?? ""),
  topic: z.string().optional(),
});

const evidenceWire = z.looseObject({
  detected_language: z
    .string()
    .nullish()
    .transform((value) => value ?? null),
  language_confidence: z
    .number()
    .nullish()
    .transform((value) => value ?? null),
  language_validation_passed: z.boolean(),
});

const summaryWire = z.looseObject({
  generated: count,
  hard_validated: count,
  guardrail_dropped: count,
  language_rejected: count,
  quality_downranked: count,
  final_count: count,
  verdict: z.string(),
  // Only "retryable" makes a gate error retryable; any other value reads as terminal (§3).
  error_category: z
    .string()
    .nullish()
    .transform((value): ShipSummary["error_category"] =>
      value === "retryable" ? "retryable" : value ? "terminal" : null,
    ),
  reason: z
    .string()
    .nullish()
    .transform((value) => value ?? ""),
});

const responseWire = z.looseObject({
  prompts: z.array(promptWire),
  language_evidence: z.array(evidenceWire).default([]),
  ship_summary: summaryWire,
});

const proxyWrapper = z.looseObject({
  statusCode: z.number().int(),
  body: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

function isVerdict(value: string): value is GenerationVerdict {
  return (GENERATION_VERDICTS as readonly string[]).includes(value);
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new GeneratorError("unparseable", "The generator answered with text that is not JSON.", { cause });
  }
}

function unwrapProxy(payload: unknown): unknown {
  const wrapped = proxyWrapper.safeParse(payload);
  if (!wrapped.success || Object.hasOwn(payload as object, "ship_summary")) return payload;
  const { statusCode, body } = wrapped.data;
  const failure = failureKindOfStatus(statusCode);
  if (failure) {
    throw new GeneratorError(failure, `The generator's proxy wrapped a ${statusCode} answer.`, {
      status: statusCode,
    });
  }
  return typeof body === "string" ? parseJsonText(body) : body;
}

export function parseGenerationResponse(payload: unknown): GenerationResponse {
  const value = unwrapProxy(typeof payload === "string" ? parseJsonText(payload) : payload);
  const parsed = responseWire.safeParse(value);
  if (!parsed.success) {
    throw new GeneratorError("unparseable", "The generator's answer is not the contract's shape.", {
      cause: parsed.error,
    });
  }
  const { prompts, language_evidence, ship_summary } = parsed.data;
  if (!isVerdict(ship_summary.verdict)) {
    throw new GeneratorError("unknown_verdict", "The generator's answer has an unknown verdict.");
  }
  return {
    prompts: prompts.map(({ prompt, category, topic }) =>
      topic === undefined ? { prompt, category } : { prompt, category, topic },
    ),
    language_evidence: language_evidence.map((evidence) => ({
      detected_language: evidence.detected_language,
      language_confidence: evidence.language_confidence,
      language_validation_passed: evidence.language_validation_passed,
    })),
    ship_summary: {
      generated: ship_summary.generated,
      hard_validated: ship_summary.hard_validated,
      guardrail_dropped: ship_summary.guardrail_dropped,
      language_rejected: ship_summary.language_rejected,
      quality_downranked: ship_summary.quality_downranked,
      final_count: ship_summary.final_count,
      verdict: ship_summary.verdict,
      error_category: ship_summary.error_category,
      reason: ship_summary.reason,
    },
  };
}
