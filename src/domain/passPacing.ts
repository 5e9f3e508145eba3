import type { Clock } from "./clock.ts";

/**
 * Pacing of a background pass (sampler, reconciler): instead of bursting every org's upstream
 * calls at the start of its period, the pass starts org `index` of `total` no sooner than
 * `index × spreadMs / total` after the pass began. A pass that is already late starts the next org
 * at once (it never waits to catch up), so a pass that cannot fit its period simply runs longer —
 * the periodic loop skips the ticks it spans and reports the overrun.
 */
export function paceOffsetMs(index: number, total: number, spreadMs: number): number {
  if (index <= 0 || total <= 0 || spreadMs <= 0) return 0;
  return Math.floor((Math.min(index, total) * spreadMs) / total);
}

/** The share of a period a paced pass spreads its orgs over: the rest is slack for slow calls. */
export const PASS_SPREAD_SHARE = 0.8;

export interface PassPace {
  /** Spread the items over this long (0: no pacing, as a CLI run or a test's direct call wants). */
  spreadMs: number;
  /** Aborted when the loop stops: a pass waiting for its next turn ends at once. */
  signal?: AbortSignal;
}

/**
 * Waits for item `index`'s turn of a pass that began at `startedAtMs` (the clock's time). False
 * when the pass was stopped meanwhile: the caller ends the pass.
 */
export async function awaitTurn(
  clock: Clock,
  pace: PassPace | undefined,
  startedAtMs: number,
  index: number,
  total: number,
): Promise<boolean> {
  if (pace?.signal?.aborted) return false;
  if (!pace || pace.spreadMs <= 0) return true;
  const waitMs = startedAtMs + paceOffsetMs(index, total, pace.spreadMs) - clock.now().getTime();
  if (waitMs <= 0) return true;
  try {
    await clock.sleep(waitMs, pace.signal);
    return true;
  } catch {
    return false;
  }
}
