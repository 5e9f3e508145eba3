import { createHash } from "node:crypto";

import type { ErrorCode } from "./errors.ts";

/**
 * Idempotency keys of the API's creates (docs/decisions/0022): pure rules, no I/O. A client sends
 * `Idempotency-Key` with a create; a repeat of that request (same key, same caller, same route and
 * org) within the key's lifetime gets the first answer again, and nothing is done twice.
 */

/** How long a key counts from its first request. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a request holds its key before a repeat may take it over: far past any request's run
 * (the edge budget is 15 s, the request timeout 30 s), so only a holder that died loses it.
 */
export const IDEMPOTENCY_IN_PROGRESS_LEASE_MS = 120_000;

/** A key is 1 to 255 visible ASCII characters (a UUID is the usual choice). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted at every depth, so one body always has one text. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
}

/** What makes two requests under one key the same request: the concrete path and the body. */
export function requestFingerprint(path: string, body: unknown): string {
  return createHash("sha256").update(path).update("\n").update(canonicalJson(body)).digest("hex");
}

/**
 * Codes that say "this did not happen yet, come back": an answer carrying one is not kept, so the
 * repeat runs the request again instead of replaying a refusal that no longer holds.
 */
const TRANSIENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "semrushProvisioningInProgress",
  "idempotencyKeyInProgress",
  "rateLimited",
]);

/**
 * Whether an answer is the request's outcome, to replay to every repeat: successes and the
 * caller's own errors (4xx) are; 5xx answers (busy, upstream down, our own failure) and the
 * transient 4xx codes are not — the key is freed and a retry runs the request again, which is safe
 * because every create is guarded on its own (attempt guard, slice reservation, unique name).
 */
export function isFinalAnswer(status: number, code: string | undefined): boolean {
  if (status >= 500) return false;
  return !(code !== undefined && TRANSIENT_CODES.has(code as ErrorCode));
}

/** A stored key row as the rules see it. */
export interface StoredKey {
  fingerprint: string;
  state: "inProgress" | "done";
  responseStatus: number | null;
  responseBody: unknown;
}

export type RepeatVerdict =
  { kind: "mismatch" } | { kind: "replay"; status: number; body: unknown } | { kind: "wait" };

/** What a request meeting an existing, live key row does. */
export function repeatVerdict(stored: StoredKey, fingerprint: string): RepeatVerdict {
  if (stored.fingerprint !== fingerprint) return { kind: "mismatch" };
  if (stored.state === "done" && stored.responseStatus !== null)
    return { kind: "replay", status: stored.responseStatus, body: stored.responseBody };
  return { kind: "wait" };
}
