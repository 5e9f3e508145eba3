import type { FastifyError } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";

import { isDatabaseUnavailable } from "../db/isDatabaseUnavailable.ts";
import { ERROR_REGISTRY, type ErrorCode, ServiceError } from "../domain/errors.ts";

/** One validation problem: where (`in` a part of the request, at a JSON `pointer`) and what. */
export interface FieldProblem {
  in: "body" | "querystring" | "params" | "headers";
  /** An RFC 6901 JSON pointer into that part ("" is the part itself). */
  pointer: string;
  /** A machine code in camelCase (`invalidType`, `tooBig`, `unrecognizedKeys`, `invalidFormat`, …). */
  code: string;
  /** A sentence for people; never echoes the caller's text. */
  detail: string;
}

export interface MappedError {
  status: number;
  code: ErrorCode;
  message: string;
  /** Every validation problem of the request (an `invalidRequest` from the route's schemas). */
  errors?: FieldProblem[];
}

/** At most this many problems are listed: enough for any form, bounded for a hostile body. */
export const MAX_FIELD_PROBLEMS = 50;

const PARTS = new Set<FieldProblem["in"]>(["body", "querystring", "params", "headers"]);

function camelCase(code: string): string {
  return code.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** Escapes one segment of an RFC 6901 pointer. */
function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function fieldProblems(error: FastifyError): FieldProblem[] {
  if (!hasZodFastifySchemaValidationErrors(error)) return [];
  const part = PARTS.has(error.validationContext as FieldProblem["in"])
    ? (error.validationContext as FieldProblem["in"])
    : "body";
  return error.validation.slice(0, MAX_FIELD_PROBLEMS).map((issue) => {
    // Unknown keys are the caller's own text, possibly huge: the pointer names their object.
    const unknownKeys = issue.keyword === "unrecognized_keys";
    const segments = (issue.instancePath ?? "").split("/").filter(Boolean).map(pointerSegment);
    return {
      in: part,
      pointer: segments.length === 0 ? "" : `/${segments.join("/")}`,
      code: camelCase(issue.keyword),
      detail: unknownKeys ? "unknown field" : (issue.message ?? "is invalid"),
    };
  });
}

const FASTIFY_CODES: Record<string, { code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: "invalidRequest", message: "The request body is not valid JSON." },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: "invalidRequest", message: "The request body must not be empty." },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: "invalidRequest",
    message: "The Content-Length header is invalid.",
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: "payloadTooLarge" },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: "unsupportedMediaType" },
  FST_ERR_CTP_INVALID_TYPE: { code: "unsupportedMediaType" },
  FST_ERR_VALIDATION: { code: "invalidRequest" },
};

const STATUS_FALLBACK: Record<number, ErrorCode> = {
  400: "invalidRequest",
  401: "authenticationRequired",
  403: "forbidden",
  404: "notFound",
  413: "payloadTooLarge",
  415: "unsupportedMediaType",
  429: "rateLimited",
};

function validationMessage(error: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    const where = [error.validationContext, ...(first?.instancePath ?? "").split("/").filter(Boolean)].join(
      ".",
    );
    // Unknown keys are the caller's own text, possibly huge: name the problem, not the keys.
    const message =
      first?.keyword === "unrecognized_keys" ? "unknown field" : (first?.message ?? "is invalid");
    // A field-specific sentence (e.g. "async must be a boolean") already names its field.
    return /^\w+ must /.test(message) ? message : `${where}: ${message}`;
  }
  return ERROR_REGISTRY.invalidRequest.message;
}

/** Maps any thrown error to a registry code and status; unknown errors are 500 internalServerError. */
export function mapError(error: unknown): MappedError {
  if (error instanceof ServiceError) {
    const mapped = { status: ERROR_REGISTRY[error.code].status, code: error.code, message: error.message };
    if (!error.bodyProblems?.length) return mapped;
    const errors = error.bodyProblems
      .slice(0, MAX_FIELD_PROBLEMS)
      .map((problem) => ({ in: "body" as const, ...problem }));
    return { ...mapped, errors };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError?.validation) {
    return {
      status: 400,
      code: "invalidRequest",
      message: validationMessage(fastifyError),
      errors: fieldProblems(fastifyError),
    };
  }
  const known = fastifyError?.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (known) {
    const status = ERROR_REGISTRY[known.code].status;
    return { status, code: known.code, message: known.message ?? ERROR_REGISTRY[known.code].message };
  }
  const status = fastifyError?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    const code = STATUS_FALLBACK[status] ?? "invalidRequest";
    return { status: ERROR_REGISTRY[code].status, code, message: ERROR_REGISTRY[code].message };
  }
  if (isDatabaseUnavailable(error)) {
    return { status: 503, code: "databaseUnavailable", message: ERROR_REGISTRY.databaseUnavailable.message };
  }
  return { status: 500, code: "internalServerError", message: ERROR_REGISTRY.internalServerError.message };
}
