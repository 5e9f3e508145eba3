/**
 * The client's retry policy (spec/gateway.md §1) as pure functions: whether an attempt's outcome
 * is retried and how long to wait first. The transport applies it; waits go through the Clock.
 */

export const DEFAULT_MAX_RETRIES = 2;
export const BACKOFF_BASE_MS = 200;
export const MAX_WAIT_MS = 20_000;
/**
 * A 429 is "not processed" and the budget re-acquires before each retry, so 429s are retried
 * within the caller's deadline (docs/decisions/0019), not after two quick tries — but never more
 * than this many times, so a clock that does not move still ends.
 */
export const MAX_THROTTLED_RETRIES = 12;

/** Methods the upstream treats as idempotent: safe to repeat after a 5xx or a lost connection. */
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);

export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/** What one attempt produced, as far as the retry policy cares. */
export type AttemptOutcome =
  | { type: "answer"; status: number; retryAfter?: string | undefined }
  | { type: "timeout" }
  | { type: "network" };

export interface RetryInput {
  method: string;
  /**
   * A POST the upstream treats as idempotent in effect (an absolute transfer, a publish, a prompt
   * create deduplicated by text): repeated after a 5xx or a lost answer like a PUT.
   */
  idempotent?: boolean;
  outcome: AttemptOutcome;
  /** Retries already made after a failure other than 429 (0 after the first attempt). */
  retriesSoFar: number;
  /** Retries already made after a 429 (counted apart: those are bounded by the deadline). */
  throttledSoFar?: number;
  /** The caller's deadline (epoch ms): a 429 is retried only if the wait ends before it. */
  deadlineAt?: number;
  maxRetries: number;
  now: Date;
  /** A uniform random number in [0, 1), injected for deterministic tests. */
  random: () => number;
}

export type RetryDecision = { retry: false } | { retry: true; waitMs: number };

/**
 * Parses `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3) into milliseconds from
 * `now`; a date in the past means "now" (0). Unparseable → undefined (fall back to backoff).
 */
const HTTP_DATE_SHAPE = /^[A-Za-z]{3}.*\b[A-Za-z]{3}\b.*\d{1,2}:\d{2}:\d{2}/;

export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only an HTTP date (a month name and a clock time): V8's Date.parse also accepts "1.5" or "-1".
  if (!HTTP_DATE_SHAPE.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/**
 * Exponential backoff from 200 ms with "equal jitter": half of the step is fixed, half random, so
 * concurrent clients spread out while no wait collapses to ~0. Capped at 20 s.
 */
export function backoffMs(retriesSoFar: number, random: () => number): number {
  const step = BACKOFF_BASE_MS * 2 ** retriesSoFar;
  const jittered = step / 2 + (step / 2) * random();
  return Math.min(MAX_WAIT_MS, Math.round(jittered));
}

function isRetryableOutcome(method: string, outcome: AttemptOutcome, idempotent: boolean): boolean {
  const repeatable = idempotent || isIdempotentMethod(method);
  if (outcome.type === "answer") {
    // 429 means "not processed": safe to repeat for any method, a POST included.
    if (outcome.status === 429) return true;
    // A 5xx may come after the upstream committed a create: only idempotent methods repeat.
    return outcome.status >= 500 && repeatable;
  }
  // A timeout or a dropped connection may also hide a committed write.
  return repeatable;
}

export function decideRetry(input: RetryInput): RetryDecision {
  const { method, outcome, retriesSoFar, maxRetries, random } = input;
  if (outcome.type === "answer" && outcome.status === 429) return decideThrottledRetry(input);
  if (retriesSoFar >= maxRetries || !isRetryableOutcome(method, outcome, input.idempotent === true)) {
    return { retry: false };
  }
  return { retry: true, waitMs: backoffMs(retriesSoFar, random) };
}

/** A 429: retried (any method: nothing was processed) while the wait still ends before the deadline. */
function decideThrottledRetry(input: RetryInput): RetryDecision {
  const { outcome, now, random } = input;
  const throttled = input.throttledSoFar ?? 0;
  if (throttled >= MAX_THROTTLED_RETRIES) return { retry: false };
  const asked = outcome.type === "answer" ? parseRetryAfter(outcome.retryAfter, now) : undefined;
  // Honour the upstream's wait, but never longer than the cap: a request must end in bounded time.
  const waitMs = asked !== undefined ? Math.min(MAX_WAIT_MS, asked) : backoffMs(throttled, random);
  if (input.deadlineAt !== undefined && now.getTime() + waitMs >= input.deadlineAt) return { retry: false };
  return { retry: true, waitMs };
}
