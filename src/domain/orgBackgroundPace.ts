/**
 * The pace of an org's background passes (docs/decisions/0042): background work proportional to
 * change. An org someone uses, whose jobs run or failed lately, or that has an orphan waiting to be
 * reclaimed gets its passes at their full pace; an idle org gets no pool sampling and a reconciler
 * run only as often as its calls fit an hourly budget. Pure: the facts come from the database
 * (src/db/orgs/listOrgBackgroundState.ts), the time is the database's.
 */

/** What Serenity recorded of an org lately, as its background passes read it. */
export interface OrgActivity {
  /** Its last org-scoped API call (a view or a write), to within a minute; null when none recorded. */
  lastRequestAt: Date | null;
  /** The last change to one of its jobs (created, a hop, completed, failed) within the look-back. */
  lastJobAt: Date | null;
  /** The last of its jobs to end FAILED within the look-back (a failure can leave orphans). */
  lastFailureAt: Date | null;
  /** One of its jobs is IN_PROGRESS. */
  jobRunning: boolean;
  /** The reconciler saw an orphan of it that is neither reclaimed nor quarantined yet. */
  orphansPending: boolean;
}

export interface IdleOrgSettings {
  /** An org with no request, no job change and no failure for this long is idle (default 1 h). */
  afterMs: number;
  /**
   * The upstream calls an idle org's background passes may make per hour, together (default 12);
   * 0 turns the idle pace off (every org at full pace).
   */
  callsPerHour: number;
}

export interface OrgBackgroundPace {
  /** Why the org is at full pace, or `idle`. */
  reason: "request" | "job" | "failure" | "orphans" | "idle";
  /** Whether the pool sampler reads the org (it does not while the org is idle). */
  sample: boolean;
  /** The reconciler's period for this org: its full period, or the idle one. */
  reconcileEveryMs: number;
}

const HOUR_MS = 3_600_000;

/** True when `at` lies within `withinMs` before `now`. */
function recent(at: Date | null, now: Date, withinMs: number): boolean {
  return at !== null && now.getTime() - at.getTime() < withinMs;
}

/** Why the org is active now, or `idle` (a failure is named before the job change it also is). */
export function activityReason(
  activity: OrgActivity,
  now: Date,
  afterMs: number,
): OrgBackgroundPace["reason"] {
  if (recent(activity.lastFailureAt, now, afterMs)) return "failure";
  if (activity.jobRunning || recent(activity.lastJobAt, now, afterMs)) return "job";
  if (recent(activity.lastRequestAt, now, afterMs)) return "request";
  if (activity.orphansPending) return "orphans";
  return "idle";
}

/**
 * An idle org's reconciler period: as long as its last run's calls need to fit `callsPerHour`,
 * never shorter than the full period. A run that made 12 calls, at 12 an hour, is due hourly; one of
 * 3 calls every 15 minutes; one of 42 every 3.5 hours. Before any run is known (`lastCalls` null)
 * the full period applies: that first run measures the org.
 */
export function idleReconcilePeriodMs(
  fullPeriodMs: number,
  lastCalls: number | null,
  callsPerHour: number,
): number {
  if (lastCalls === null || callsPerHour <= 0) return fullPeriodMs;
  return Math.max(fullPeriodMs, Math.ceil((lastCalls * HOUR_MS) / callsPerHour));
}

/**
 * The org's pace now: full while it is active (a request, a job or a failure within
 * `idle.afterMs`; an orphan pending keeps the reconciler alone at full pace), else idle — the sampler skips it and the reconciler runs it
 * at `idleReconcilePeriodMs`. The budget is all the reconciler's, because the sampler is off.
 */
export function orgBackgroundPace(
  activity: OrgActivity,
  now: Date,
  settings: { idle: IdleOrgSettings; reconcileEveryMs: number; lastReconcileCalls: number | null },
): OrgBackgroundPace {
  const reason = activityReason(activity, now, settings.idle.afterMs);
  // No budget set (SERENITY_IDLE_ORG_CALLS_PER_HOUR=0): the idle pace is off, every org at full pace.
  if (reason === "idle" && settings.idle.callsPerHour <= 0) {
    return { reason, sample: true, reconcileEveryMs: settings.reconcileEveryMs };
  }
  // An orphan waiting for its grace needs the reconciler, not the sampler.
  if (reason !== "idle") {
    return { reason, sample: reason !== "orphans", reconcileEveryMs: settings.reconcileEveryMs };
  }
  return {
    reason,
    sample: false,
    reconcileEveryMs: idleReconcilePeriodMs(
      settings.reconcileEveryMs,
      settings.lastReconcileCalls,
      settings.idle.callsPerHour,
    ),
  };
}

/**
 * The order a reconcile pass visits its orgs: active ones first (in the order given), then idle
 * ones, the longest unreconciled first (never reconciled before all). With one operator token for
 * every idle org the account's background share can be saturated by idle runs; visiting active
 * orgs first, and leaving the idle ones a tick did not reach to the next tick, keeps the active
 * orgs' full pace and shares the rest fairly among the idle ones.
 */
export function reconcileOrder<T extends { pace: OrgBackgroundPace; lastReconciledAt: Date | null }>(
  orgs: readonly T[],
): T[] {
  const active = orgs.filter((org) => org.pace.reason !== "idle");
  const idle = orgs
    .filter((org) => org.pace.reason === "idle")
    .sort(
      (a, b) => (a.lastReconciledAt?.getTime() ?? -Infinity) - (b.lastReconciledAt?.getTime() ?? -Infinity),
    );
  return [...active, ...idle];
}
