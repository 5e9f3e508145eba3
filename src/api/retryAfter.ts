import type { ErrorCode } from "../domain/errors.ts";

/**
 * The `Retry-After` (seconds) of the answers that say when to come back: the busy answers (503: a
 * lease or lock wait, or the wait for the account's upstream budget, already ran out), a repeat
 * of an idempotent create still running (409), and our own rate limit (429). The registry's `when`
 * of exactly these codes says "(Retry-After)" (a test walks the registry and provokes each). A whole request failing with one of
 * these codes carries it, and so does a multi-status answer whose failed items carry one.
 */
export const RETRY_AFTER_CODES: Readonly<Partial<Record<ErrorCode, number>>> = {
  brandBusy: 2,
  workspaceBusy: 1,
  // A second of an account's upstream budget frees ten calls (ADR 0019).
  upstreamBusy: 2,
  // The first request with the key is still running: it ends within its own edge budget.
  idempotencyKeyInProgress: 1,
  // The rate limiter sets the seconds until its window ends; this is only the floor it never undercuts.
  rateLimited: 1,
};

export function retryAfterSecondsOf(code: string): number | undefined {
  return RETRY_AFTER_CODES[code as ErrorCode];
}

/** The longest `Retry-After` among several codes (a multi-status answer's failed items), if any. */
export function retryAfterSecondsOfAll(codes: Iterable<string>): number | undefined {
  let longest: number | undefined;
  for (const code of codes) {
    const seconds = RETRY_AFTER_CODES[code as ErrorCode];
    if (seconds !== undefined && (longest === undefined || seconds > longest)) longest = seconds;
  }
  return longest;
}
