import type { z } from "zod";

import { type Logger, truncateForLog } from "../observability/logger.ts";
import {
  classifyAnswer,
  classifyTransportFailure,
  statusOfTransportFailure,
  type TransportFailure,
} from "./classifyError.ts";
import { GatewayError } from "./errors.ts";
import type { GatewayName } from "./types.ts";

/**
 * How the transport reads what one attempt of a call got: a 2xx body validated and mapped, or the
 * typed `GatewayError` of a failure. Errors name the call by its templated route, never an id.
 */

/** What an attempt got: an answer (any status), or no answer at all. */
export type Attempt =
  | { type: "answer"; status: number; body: string; retryAfter: string | undefined }
  | { type: TransportFailure; cause: unknown };

/** The call as its errors and logs name it. */
export interface CallSite {
  method: string;
  route: string;
  gateway: GatewayName;
}

/** A 2xx body through the call's schema; a body that does not match is `unexpectedResponse`. */
export function parseAnswer<T>(
  call: CallSite & { response?: z.ZodType<T> },
  status: number,
  body: string,
  logger: Logger,
): T {
  const schema = call.response;
  if (!schema) return undefined as T;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw unexpectedAnswer(call, status, body, "the body is not JSON", cause, logger);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.code}`);
    throw unexpectedAnswer(call, status, body, problems.join("; "), parsed.error, logger);
  }
  return parsed.data;
}

function unexpectedAnswer(
  call: CallSite,
  status: number,
  body: string,
  problem: string,
  cause: unknown,
  logger: Logger,
): GatewayError {
  const error = new GatewayError({
    kind: "unexpectedResponse",
    status,
    method: call.method,
    route: call.route,
    gateway: call.gateway,
    body: truncateForLog(body),
    cause,
  });
  logger.warn({ ...error.toLog(), problem }, "gateway response failed validation");
  return error;
}

/** The typed failure of an attempt that did not succeed, classified by spec/gateway.md §5. */
export function errorOfAttempt(call: CallSite, attempt: Attempt): GatewayError {
  const { method, route, gateway } = call;
  if (attempt.type === "answer") {
    return new GatewayError({
      kind: classifyAnswer(attempt),
      status: attempt.status,
      method,
      route,
      gateway,
      body: truncateForLog(attempt.body),
    });
  }
  return new GatewayError({
    kind: classifyTransportFailure(attempt.type),
    status: statusOfTransportFailure(attempt.type),
    method,
    route,
    gateway,
    cause: attempt.cause,
  });
}
