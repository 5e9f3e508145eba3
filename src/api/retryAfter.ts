/**
 * The `Retry-After` (seconds) of the retryable busy answers (503): a lease or lock wait, or the
 * wait for the account's upstream budget, already ran out. A whole request failing with one of
 * these codes carries it, and so does a multi-status answer whose failed items carry one.
 */
export const RETRY_AFTER_CODES: Readonly<Record<string, number>> = {
  brandBusy: 2,
  workspaceBusy: 1,
  // A second of an account's upstream budget frees ten calls (ADR 0019).
  upstreamBusy: 2,
};

export function retryAfterSecondsOf(code: string): number | undefined {
  return RETRY_AFTER_CODES[code];
}

/** The longest `Retry-After` among several codes (a multi-status answer's failed items), if any. */
export function retryAfterSecondsOfAll(codes: Iterable<string>): number | undefined {
  let longest: number | undefined;
  for (const code of codes) {
    const seconds = RETRY_AFTER_CODES[code];
    if (seconds !== undefined && (longest === undefined || seconds > longest)) longest = seconds;
  }
  return longest;
}
