import type { GatewayErrorKind } from "./errors.ts";

/**
 * The classification table of spec/gateway.md §5 as pure functions: an upstream answer (status +
 * body text) or a transport failure in, a `GatewayErrorKind` out. No I/O, so every row is unit-tested.
 */

export interface UpstreamAnswer {
  status: number;
  /** The raw body text (possibly empty). */
  body: string;
}

/**
 * True when the body is a JSON object or array. We read the body's shape rather than trusting the
 * `content-type` label: the live quota 405 is an nginx HTML page, the genuine one `{"message":…}`,
 * and a bare word like `405` would otherwise "parse" as JSON.
 */
export function isJsonBody(body: string): boolean {
  const text = body.trim();
  if (!text.startsWith("{") && !text.startsWith("[")) return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null;
  } catch {
    return false;
  }
}

/** A 405 with a non-empty, non-JSON string body is the metered-quota rejection (§3). */
export function isMeteredQuotaAnswer(answer: UpstreamAnswer): boolean {
  return answer.status === 405 && answer.body.trim() !== "" && !isJsonBody(answer.body);
}

/** The human text of an error body: `message` or `detail` of a JSON body, else the raw text. */
export function errorMessageOf(body: string): string {
  if (isJsonBody(body)) {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    for (const key of ["message", "detail", "error"]) {
      const value = parsed[key];
      if (typeof value === "string") return value;
    }
  }
  return body;
}

function classify422(body: string): GatewayErrorKind {
  const message = errorMessageOf(body).toLowerCase();
  if (message.includes("insufficient")) return "poolExhausted";
  if (/not\s*ready/.test(message)) return "workspaceNotReady";
  return "badRequest";
}

/** Classifies a non-2xx answer. A 2xx is not an error and is never passed here. */
export function classifyAnswer(answer: UpstreamAnswer): GatewayErrorKind {
  const { status, body } = answer;
  if (status >= 500) return "unavailable";
  switch (status) {
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "gone";
    case 405:
      return isMeteredQuotaAnswer(answer) ? "meteredQuota" : "methodNotAllowed";
    case 409:
      return "conflict";
    case 422:
      return classify422(body);
    case 429:
      return "rateLimited";
  }
  if (status >= 400) return "badRequest";
  // 1xx/3xx never reach us on these APIs (undici does not follow redirects): contract drift.
  return "unexpectedResponse";
}

export type TransportFailure = "timeout" | "network";

/** A timeout (surfaced as 504) or a network failure (status 0) is always `unavailable`. */
export function classifyTransportFailure(_failure: TransportFailure): GatewayErrorKind {
  return "unavailable";
}

/** The status a transport failure is reported with, in errors and in metrics. */
export function statusOfTransportFailure(failure: TransportFailure): number {
  return failure === "timeout" ? 504 : 0;
}
