import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Counts the upstream calls one unit of background work makes (every HTTP exchange the transport
 * sends, retries included), so a pass can record what an org's run cost: an idle org's next run
 * waits until that many calls fit its hourly budget (docs/decisions/0042). Tallies nest: a call
 * counts in every tally around it.
 */
interface Tally {
  calls: number;
  outer: Tally | undefined;
}

const storage = new AsyncLocalStorage<Tally>();

/** Runs `work` and answers its result with the upstream calls it made (also when it throws: `onCalls`). */
export async function tallyUpstreamCalls<T>(
  work: () => Promise<T>,
  onCalls: (calls: number) => void,
): Promise<T> {
  const tally: Tally = { calls: 0, outer: storage.getStore() };
  try {
    return await storage.run(tally, work);
  } finally {
    onCalls(tally.calls);
  }
}

/** The transport's note of one exchange sent (src/gateway/transport.ts). */
export function noteUpstreamCall(): void {
  for (let tally = storage.getStore(); tally; tally = tally.outer) tally.calls += 1;
}
