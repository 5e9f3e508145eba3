/**
 * When the provisioning job polls a settling sub-workspace again (spec/provisioning.md §5).
 *
 * SPEC §7 asks for a ready workspace within max(1 s, 25 %) of the upstream's settle time. A poll
 * at elapsed time t that still sees `not ready` schedules the next one after
 * `clamp(25 % of t, 1 s, 30 s)`: if the workspace settles at S (with t < S), the next poll lands at
 * most max(1 s, 0.25·t) ≤ max(1 s, 0.25·S) after it. The delays grow geometrically (×1.25 per hop)
 * once past 4 s, so a 10-minute settle budget is covered in about 35 hops.
 *
 * Rejected: a fixed 5/10/20/40/80 s ladder (the previous system's), which overshoots a 41 s
 * settle by up to 34 s (a workspace ready at 41 s is seen at 75 s), and a fixed 1 s poll, which
 * makes hundreds of hops for a slow settle.
 */
export const LADDER_MIN_DELAY_MS = 1_000;
export const LADDER_MAX_DELAY_MS = 30_000;
export const LADDER_FRACTION = 0.25;

export function nextPollDelayMs(elapsedSinceCreateMs: number): number {
  const proportional = Math.ceil(Math.max(0, elapsedSinceCreateMs) * LADDER_FRACTION);
  return Math.min(LADDER_MAX_DELAY_MS, Math.max(LADDER_MIN_DELAY_MS, proportional));
}

/** The poll times (ms since create) the ladder produces up to `budgetMs`, first poll at 0. */
export function pollSchedule(budgetMs: number): number[] {
  const times = [0];
  for (let at = 0; at < budgetMs;) {
    at += nextPollDelayMs(at);
    times.push(at);
  }
  return times;
}

/** The first poll at or after `settleMs`: when the job sees the workspace ready. */
export function firstPollAtOrAfter(schedule: number[], settleMs: number): number | undefined {
  return schedule.find((at) => at >= settleMs);
}
