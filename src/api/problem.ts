import type { FastifyReply, FastifyRequest } from "fastify";

import { ERROR_REGISTRY, type ErrorCode } from "../domain/errors.ts";
import type { FieldProblem, MappedError } from "./errorMapping.ts";
import { retryAfterSecondsOf } from "./retryAfter.ts";

/**
 * Every error answer is an RFC 9457 problem details document (docs/decisions/0037), served as
 * `application/problem+json`:
 *
 * - `type`: `/errors/{code}`, a reference resolved against the API's own origin, where the code's
 *   documentation is served (src/api/routes/errorDocs.ts);
 * - `title`: the code's fixed sentence; `status`: the HTTP status; `detail`: this occurrence's
 *   caller-safe sentence (never an upstream body, id or token);
 * - `instance`: `urn:serenity:request:{requestId}`;
 * - extensions: `code` (the registry code, what a client switches on), `requestId`, and on a
 *   validation failure `errors`: every problem at once, each with a JSON pointer and a code;
 * - deprecated, kept for one release: `error` (= `code`) and `message` (= `detail`).
 */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Where a registry code's documentation is served, relative to the API's origin. */
export function problemTypeOf(code: string): string {
  return `/errors/${code}`;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  requestId: string;
  errors?: FieldProblem[];
  /** @deprecated the same as `code`; removed in the next major release. */
  error: ErrorCode;
  /** @deprecated the same as `detail`; removed in the next major release. */
  message: string;
}

export function problemOf(mapped: MappedError, requestId: string): Problem {
  return {
    type: problemTypeOf(mapped.code),
    title: ERROR_REGISTRY[mapped.code].message,
    status: mapped.status,
    detail: mapped.message,
    instance: `urn:serenity:request:${requestId}`,
    code: mapped.code,
    requestId,
    ...(mapped.errors ? { errors: mapped.errors } : {}),
    error: mapped.code,
    message: mapped.message,
  };
}

/**
 * Sends `mapped` as a problem, with `Retry-After` when the registry documents one for its code
 * (a header already set, e.g. by the rate limiter with the window's remaining seconds, wins).
 */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, mapped: MappedError) {
  const retryAfter = retryAfterSecondsOf(mapped.code);
  if (retryAfter !== undefined && reply.getHeader("retry-after") === undefined)
    void reply.header("retry-after", String(retryAfter));
  return reply
    .status(mapped.status)
    .header("x-request-id", request.id)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problemOf(mapped, request.id));
}
