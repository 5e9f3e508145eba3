/**
 * The suites' two ways of letting time pass, and the only ones: tests never sleep to wait for a
 * backoff or a lease (those run on a ManualClock).
 */

/**
 * Waits until `check` holds, polling observed state: for work that runs on real connections (a
 * handler on the database, a timer whose cadence is real time, a child process). The deadline only
 * guards against a hang; it is no speed target.
 */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${options.what ?? "condition"} not met in time`);
    await nextTurn(10);
  }
}

/**
 * Lets what the code under test already started run — promise chains, and the I/O callbacks of its
 * database or HTTP round trips — before the test moves a ManualClock on. Not a wait for a result:
 * a test that needs one waits for it with `waitFor`.
 */
export function nextTurn(ms = 5): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise's settlement, watched without awaiting it (is a waiter still blocked?). */
export function track<T>(promise: Promise<T>): { settled: boolean; value?: T; error?: unknown } {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}
