import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The longest caller-supplied id adopted: longer ones are replaced (issue 39, item 8). */
export const MAX_CALLER_REQUEST_ID_LENGTH = 128;
const WELL_FORMED = new RegExp(`^[A-Za-z0-9._:-]{1,${MAX_CALLER_REQUEST_ID_LENGTH}}$`);

/**
 * Accept a caller's `x-request-id` when well-formed, else generate one (spec/api.md §4). A caller's
 * id is a correlation the caller chose, never a key: two requests may carry the same one (a retry, a
 * careless client, a forged one), so nothing in Serenity looks anything up by it, de-duplicates by
 * it or assumes it names one request — the ledger and logs store it beside their own keys, and the
 * request's log line says where it came from (`requestIdFrom`).
 */
export function requestIdFor(request: IncomingMessage): string {
  return callerRequestIdOf(request) ?? randomUUID();
}

/** The caller's `x-request-id` when it is adopted (well-formed and bounded), else undefined. */
export function callerRequestIdOf(request: IncomingMessage): string | undefined {
  const header = request.headers["x-request-id"];
  const candidate = Array.isArray(header) ? header[0] : header;
  return candidate && WELL_FORMED.test(candidate) ? candidate : undefined;
}
