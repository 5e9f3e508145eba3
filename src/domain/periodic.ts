/**
 * A background loop on a real timer (cadence, not business time): runs `pass` every `everyMs`,
 * the first time one interval after the start; a tick that finds the previous pass still running
 * is skipped, so passes never overlap. The timer never keeps the process alive (unref), and
 * `stop()` clears it and waits for the pass in flight. `pass` reports its own outcome; a rejection
 * goes to `onError`, and the loop goes on.
 */
export interface PeriodicLoop {
  stop(): Promise<void>;
}

export function startPeriodic(options: {
  everyMs: number;
  pass: () => Promise<unknown>;
  onError: (error: unknown) => void;
}): PeriodicLoop {
  let inFlight: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = options
      .pass()
      .then(
        () => undefined,
        (error: unknown) => options.onError(error),
      )
      .finally(() => (inFlight = undefined));
  }, options.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
