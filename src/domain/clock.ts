/** The clock adapter: every "now" and every wait in services goes through it, so tests move time. */
export interface Clock {
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Milliseconds on a clock that only moves forward at a steady rate (`performance.now()` for the
   * system clock): what a lease holder measures its remaining time on, so a wall-clock step (NTP,
   * an operator) can neither shorten nor stretch it. A clock without it measures on `now()`.
   */
  monotonicMs?(): number;
  /**
   * Only a test's hand-driven clock has it: the time that lease and expiry statements decide with
   * instead of PostgreSQL's clock. Production clocks leave it out, so every expiry and takeover is
   * decided on the database's clock, never on a process's (docs/decisions/0023).
   */
  databaseTime?(): Date;
}

/** A holder's steady reading of `clock` (see `Clock.monotonicMs`). */
export function monotonicMsOf(clock: Clock): number {
  return clock.monotonicMs ? clock.monotonicMs() : clock.now().getTime();
}

export const systemClock: Clock = {
  now: () => new Date(),
  monotonicMs: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};
