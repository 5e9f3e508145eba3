/**
 * Per-pass lag of the fleet benchmark: from the visits polled during the window (and each org's last
 * visit before it), the longest stretch each org went without a visit. The stretch after the last
 * visit is counted up to the window's end, so an org the pass never reached shows its whole wait.
 *
 * A stretch is measured twice: in wall time, and in the passes' running time — wall time less the
 * bench's own paused phases (every worker SIGSTOPped to measure the API without the passes), when no
 * pass can visit anything. The budget (twice the period) is judged on running time; the wall-time
 * figure is reported beside it.
 */

/** [start, end) in epoch ms. */
export type Interval = readonly [number, number];

/** How much of [from, to) falls outside every interval of `paused`. */
export function runningMs(from: number, to: number, paused: readonly Interval[]): number {
  let stopped = 0;
  for (const [start, end] of paused) stopped += Math.max(0, Math.min(to, end) - Math.max(from, start));
  return to - from - stopped;
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
   * Longest gap per org over [windowStart, windowEnd], ms, less the time inside `paused` (none: wall
   * time). Paused intervals must not overlap one another.
   */
  worstGaps(
    orgs: string[],
    windowStart: number,
    windowEnd: number,
    paused: readonly Interval[] = [],
  ): Map<string, number> {
    const gaps = new Map<string, number>();
    for (const org of orgs) {
      let previous = this.before.get(org) ?? windowStart;
      let worst = 0;
      for (const at of [...(this.during.get(org) ?? []), windowEnd]) {
        worst = Math.max(worst, runningMs(previous, at, paused));
        previous = at;
      }
      gaps.set(org, worst);
    }
    return gaps;
  }

  visitsDuring(org: string): number {
    return this.during.get(org)?.length ?? 0;
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
