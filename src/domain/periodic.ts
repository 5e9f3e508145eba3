/**
 * A background loop on a real timer (cadence, not business time): runs `pass` every `everyMs`,
 * the first time one interval after the start; a tick that finds the previous pass still running
 * is skipped, so passes never overlap. The timer never keeps the process alive (unref), and
 * `stop()` clears it and waits for the pass in flight. `pass` reports its own outcome; a rejection
 * goes to `onError`, and the loop goes on.
 *
 * A pass that takes longer than its budget (`overrunAfterMs`, default the interval) is reported
 * to `onOverrun` with its duration when it ends: the loop has already lengthened itself (the ticks
 * it spanned were skipped), and the report is what tells an operator that the pass no longer fits.
 * `pass` receives a signal that `stop()` aborts, so a pass pacing itself stops waiting at once.
 */
export interface PeriodicLoop {
  stop(): Promise<void>;
}

export function startPeriodic(options: {
  everyMs: number;
  pass: (signal: AbortSignal) => Promise<unknown>;
  onError: (error: unknown) => void;
  overrunAfterMs?: number;
  onOverrun?: (durationMs: number) => void;
}): PeriodicLoop {
  let inFlight: Promise<void> | undefined;
  const stopping = new AbortController();
  const budgetMs = options.overrunAfterMs ?? options.everyMs;
  const timer = setInterval(() => {
    if (inFlight) return;
    const startedAt = Date.now();
    inFlight = options
      .pass(stopping.signal)
      .then(
        () => undefined,
        (error: unknown) => options.onError(error),
      )
      .finally(() => {
        inFlight = undefined;
        const durationMs = Date.now() - startedAt;
        if (durationMs > budgetMs) options.onOverrun?.(durationMs);
      });
  }, options.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await inFlight;
    },
  };
}
