/** The default retry ladder: 1 s, 2 s, 4 s, … capped at 60 s. Pure. */
export function defaultRetryDelayMs(attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 16));
  return Math.min(60_000, 1000 * 2 ** exponent);
}
