/**
 * Per-pass lag of the fleet benchmark: from the visits polled during the window (and each org's last
 * visit before it), the longest stretch each org went without a visit. The stretch after the last
 * visit is counted up to the window's end, so an org the pass never reached shows its whole wait.
 *
 * A stretch is measured twice: in wall time, and with the time the org was overdue (past its
 * previous visit plus its period) while the bench held the passes stopped left out — the paused
 * phases, every worker SIGSTOPped to measure the API without the passes, when no pass can visit
 * anything. Before an org falls due a pause delays nothing (the period's, a lease's and a tick's
 * timers run on through it), so that time stays counted. The budget (twice the period) is judged
 * on the second; the wall-time figure is reported beside it.
 */

/** [start, end) in epoch ms. */
export type Interval = readonly [number, number];

/** How much of [from, to) falls outside every interval of `paused`. */
export function runningMs(from: number, to: number, paused: readonly Interval[]): number {
  let stopped = 0;
  for (const [start, end] of paused) stopped += Math.max(0, Math.min(to, end) - Math.max(from, start));
  return to - from - stopped;
}

/** A gap from `from` to `to` less the paused time after it fell due at `from + periodMs`. */
export function overdueAwareMs(
  from: number,
  to: number,
  periodMs: number | undefined,
  paused: readonly Interval[],
): number {
  if (periodMs === undefined) return to - from;
  const due = Math.min(to, from + periodMs);
  return due - from + runningMs(due, to, paused);
}

export class VisitLog {
  /** The last visit before the window, per org. */
  readonly before = new Map<string, number>();
  /** Every distinct visit seen during the window, per org, in order. */
  readonly during = new Map<string, number[]>();
  readonly #last = new Map<string, number>();

  start(visits: Map<string, number>): void {
    for (const [org, at] of visits) {
      this.before.set(org, at);
      this.#last.set(org, at);
    }
  }

  /**
   * Counts every org from the window's start: the visits already made are known (so a poll does
   * not take them for new ones) but no stretch before the window is counted.
   */
  startFromWindow(visits: Map<string, number>): void {
    for (const [org, at] of visits) this.#last.set(org, at);
  }

  observe(visits: Map<string, number>): void {
    for (const [org, at] of visits) {
      if (this.#last.get(org) === at) continue;
      this.#last.set(org, at);
      const list = this.during.get(org) ?? [];
      list.push(at);
      this.during.set(org, list);
    }
  }

  /**
   * Longest gap per org over [windowStart, windowEnd], ms; visits polled after the window are not
   * counted. With `overdue`: the paused time after the org fell due is left out (above).
   */
  worstGaps(
    orgs: string[],
    windowStart: number,
    windowEnd: number,
    overdue?: { paused: readonly Interval[]; periodOf: (org: string) => number | undefined },
  ): Map<string, number> {
    const gaps = new Map<string, number>();
    for (const org of orgs) {
      const periodMs = overdue?.periodOf(org);
      let previous = this.before.get(org) ?? windowStart;
      let worst = 0;
      for (const at of [...this.#inWindow(org, windowEnd), windowEnd]) {
        worst = Math.max(worst, overdueAwareMs(previous, at, periodMs, overdue?.paused ?? []));
        previous = at;
      }
      gaps.set(org, worst);
    }
    return gaps;
  }

  #inWindow(org: string, windowEnd: number): number[] {
    return (this.during.get(org) ?? []).filter((at) => at <= windowEnd);
  }

  /** Visits during the window, by `windowEnd` when given. */
  visitsDuring(org: string, windowEnd = Infinity): number {
    return this.#inWindow(org, windowEnd).length;
  }
}

export interface LagSummary {
  orgs: number;
  /** Orgs visited at least once during the window. */
  visited: number;
  worstS: number;
  p50S: number;
  /** Orgs whose worst gap exceeded twice their period. */
  overBudget: number;
}

/** `periodOf` gives each org's period (ms): the ADR's period for that org, which may differ by org. */
export function summariseLag(
  gaps: Map<string, number>,
  visited: number,
  periodOf: (org: string) => number,
): LagSummary {
  const sorted = [...gaps.values()].sort((a, b) => a - b);
  return {
    orgs: sorted.length,
    visited,
    worstS: sorted.length ? sorted[sorted.length - 1]! / 1000 : NaN,
    p50S: sorted.length ? sorted[Math.floor(sorted.length / 2)]! / 1000 : NaN,
    overBudget: [...gaps.entries()].filter(([org, gap]) => gap > 2 * periodOf(org)).length,
  };
}
