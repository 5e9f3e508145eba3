import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accept a caller's `x-request-id` when well-formed, else generate one (spec/api.md §4). */
export function requestIdFor(request: IncomingMessage): string {
  const header = request.headers["x-request-id"];
  const candidate = Array.isArray(header) ? header[0] : header;
  return candidate && WELL_FORMED.test(candidate) ? candidate : randomUUID();
}
