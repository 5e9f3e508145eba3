import { randomUUID } from "node:crypto";

import type { WorkerSettings } from "../config/env.ts";
import type { CredentialStore } from "../credentials/credentialStore.ts";
import { UPSTREAM_AUDIENCE } from "../credentials/credentialStore.ts";
import { findLatestOrgCredential } from "../db/credentials/findLatestOrgCredential.ts";
import type { Db } from "../db/database.ts";
import { listOrgBackgroundState, NOTHING_RECORDED } from "../db/orgs/listOrgBackgroundState.ts";
import { listOrgs } from "../db/orgs/listOrgs.ts";
import { claimReconcileRun } from "../db/upstreamReconcile/claimReconcileRun.ts";
import { finishReconcileRun } from "../db/upstreamReconcile/finishReconcileRun.ts";
import type { Clock } from "../domain/clock.ts";
import { type OperatorBearer, operatorBearerFor } from "../domain/operatorTokens.ts";
import { type IdleOrgSettings, orgBackgroundPace, reconcileOrder } from "../domain/orgBackgroundPace.ts";
import { awaitTurn, PASS_SPREAD_SHARE, type PassPace } from "../domain/passPacing.ts";
import { type PeriodicLoop, startPeriodic } from "../domain/periodic.ts";
import { tallyUpstreamCalls } from "../gateway/upstreamCallTally.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import { reportOverrun } from "../observability/backgroundPassOverrun.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgReconcileReport, UpstreamReconciler } from "./upstreamReconciler.ts";

/** A run's lease: a process that dies mid-run holds the org at most this long. */
const MIN_RUN_LEASE_MS = 5 * 60_000;

/**
 * The period per org (0 = the reconciler does not run in this process) and the grace: read at boot
 * from SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS / _GRACE_MS (src/config/env.ts, Config.worker).
 */
export type UpstreamReconcileSettings = WorkerSettings["upstreamReconcile"];

export interface UpstreamReconcileScheduleDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  credentials: CredentialStore;
  reconciler: UpstreamReconciler;
  settings: UpstreamReconcileSettings;
  /**
   * When an org is idle and what its background passes may spend then (SERENITY_IDLE_ORG_AFTER_MS,
   * SERENITY_IDLE_ORG_CALLS_PER_HOUR): an idle org is run once per
   * `max(intervalMs, last run's calls / callsPerHour h)` (docs/decisions/0042).
   */
  idle: IdleOrgSettings;
  /**
   * An operator's upstream token (SERENITY_UPSTREAM_TOKEN) used when the org has no live stored
   * credential: stored ones end with their job's lineage, so without it an org is reconciled only
   * while someone's job runs there.
   */
  fallbackBearer?: OperatorBearer;
}

export interface ReconcilePassReport {
  ran: OrgReconcileReport[];
  /** Orgs at the idle pace this pass (run or not). */
  idle: number;
  /** Idle orgs left to the next tick, this one having run out of time. */
  deferred: number;
  skipped: number;
  noCredential: number;
  failed: number;
}

/**
 * When and where the upstream reconciler runs: every worker ticks, and per org one process at a
 * time takes the org's run (a lease row, src/db/upstreamReconcile/claimReconcileRun.ts) when the
 * last run finished a period ago — so N workers reconcile each org once a period, not N times.
 * The period is the org's own (docs/decisions/0042): the full one while the org is active (a
 * request, a job or a failure within SERENITY_IDLE_ORG_AFTER_MS, or an orphan pending), else as
 * long as its last run's calls need to fit SERENITY_IDLE_ORG_CALLS_PER_HOUR. A tick visits the
 * active orgs first and gives the idle ones what is left of it (reconcileOrder), so idle runs that
 * saturate the operator's account never hold up an active org for more than one run.
 * Reading upstream needs a bearer and a worker has no user: like the pool sampler, it uses the
 * most recent live credential attached to a job of the org; an org without one is skipped.
 */
export class UpstreamReconcileSchedule {
  readonly #deps: UpstreamReconcileScheduleDeps;
  readonly #holder = randomUUID();
  #loop: PeriodicLoop | undefined;

  constructor(deps: UpstreamReconcileScheduleDeps) {
    this.#deps = deps;
  }

  /**
   * One pass over every org with a parent workspace; never throws for one org's failure. With
   * `pace`, the orgs' turns are spread over `pace.spreadMs` (domain/passPacing.ts).
   */
  runDue(
    options: { graceMs?: number; pace?: PassPace; idleUntilMs?: number } = {},
  ): Promise<ReconcilePassReport> {
    // A reconcile pass is background work: it yields the account's budget to requests and jobs.
    return asBackgroundWork(() => this.#runDue(options));
  }

  async #runDue(options: {
    graceMs?: number;
    pace?: PassPace;
    idleUntilMs?: number;
  }): Promise<ReconcilePassReport> {
    const { db, clock, logger, events, credentials, reconciler, settings } = this.#deps;
    const report: ReconcilePassReport = {
      ran: [],
      idle: 0,
      deferred: 0,
      skipped: 0,
      noCredential: 0,
      failed: 0,
    };
    const startedAt = clock.now().getTime();
    const orgs = (await listOrgs(db, undefined)).filter((org) => org.parentWorkspaceId);
    const background = await listOrgBackgroundState(db, {
      now: clock.databaseTime?.(),
      lookBackMs: this.#deps.idle.afterMs,
    });
    const visits = reconcileOrder(
      orgs.map((org) => {
        const state = background.states.get(org.id) ?? NOTHING_RECORDED;
        const pace = orgBackgroundPace(state.activity, background.now, {
          idle: this.#deps.idle,
          reconcileEveryMs: settings.intervalMs,
          lastReconcileCalls: state.lastReconcileCalls,
        });
        return { org, state, pace, lastReconciledAt: state.lastReconciledAt };
      }),
    );
    for (const [index, { org, state, pace }] of visits.entries()) {
      if (!(await awaitTurn(clock, options.pace, startedAt, index, visits.length))) break;
      if (!org.parentWorkspaceId) continue;
      // An idle org this tick did not reach in time waits for the next, where active orgs go first.
      if (
        pace.reason === "idle" &&
        options.idleUntilMs !== undefined &&
        clock.now().getTime() - startedAt >= options.idleUntilMs
      ) {
        report.deferred += 1;
        continue;
      }
      const target = { id: org.id, parentWorkspaceId: org.parentWorkspaceId };
      if (pace.reason === "idle") report.idle += 1;
      // Not due by what the tick read: no claim statement (the claim below stays the guard).
      const notDue =
        state.lastReconciledAt !== null &&
        background.now.getTime() - state.lastReconciledAt.getTime() < pace.reconcileEveryMs;
      const claimed =
        !notDue &&
        (await claimReconcileRun(db, {
          orgId: org.id,
          holder: this.#holder,
          now: clock.databaseTime?.(),
          leaseMs: Math.max(MIN_RUN_LEASE_MS, 2 * settings.intervalMs),
          periodMs: pace.reconcileEveryMs,
        }));
      if (!claimed) {
        report.skipped += 1;
        events.emit("upstream.reconcileRun", { orgId: org.id, outcome: "skipped" });
        continue;
      }
      const log = logger.child({ orgId: org.id });
      let calls = 0;
      try {
        const credentialId = await findLatestOrgCredential(db, {
          orgId: org.id,
          audience: UPSTREAM_AUDIENCE,
          now: clock.now(),
        });
        const exchanged = credentialId ? await credentials.exchange(credentialId) : undefined;
        const bearer =
          exchanged?.status === "ok" ? exchanged.token : operatorBearerFor(this.#deps.fallbackBearer, org.id);
        if (!bearer) {
          log.debug(
            { reason: exchanged?.status === "NEEDS_REAUTH" ? exchanged.reason : "missing" },
            "upstream reconciler: no live credential; skipped",
          );
          report.noCredential += 1;
          events.emit("upstream.reconcileRun", { orgId: org.id, outcome: "noCredential" });
          continue;
        }
        report.ran.push(
          await tallyUpstreamCalls(
            () => reconciler.reconcileOrg(target, bearer, { graceMs: options.graceMs ?? settings.graceMs }),
            (made) => (calls = made),
          ),
        );
        events.emit("upstream.reconcileRun", { orgId: org.id, outcome: "ran" });
      } catch (error) {
        log.warn({ err: error }, "upstream reconciler: the org's pass failed");
        report.failed += 1;
        events.emit("upstream.reconcileRun", { orgId: org.id, outcome: "failed" });
      } finally {
        await finishReconcileRun(db, {
          orgId: org.id,
          holder: this.#holder,
          now: clock.databaseTime?.(),
          calls,
        }).catch((error: unknown) =>
          log.warn(
            { err: error },
            "upstream reconciler: could not end the org's run (its lease will expire)",
          ),
        );
      }
    }
    return report;
  }

  /**
   * Ticks a few times per period (the lease decides who runs and when); passes never overlap.
   * A no-op when the period is 0.
   */
  start(): void {
    const { intervalMs } = this.#deps.settings;
    if (this.#loop || intervalMs <= 0) return;
    const { logger } = this.#deps;
    const everyMs = Math.max(50, Math.min(Math.floor(intervalMs / 4), 30_000));
    this.#loop = startPeriodic({
      everyMs,
      // A tick's orgs are spread over most of the tick, not read all at its start.
      pass: async (signal) => {
        const report = await this.runDue({
          pace: { spreadMs: PASS_SPREAD_SHARE * everyMs, signal },
          // Idle orgs get what is left of the tick; active ones are visited first (reconcileOrder).
          idleUntilMs: everyMs,
        });
        logger.debug({ ...report, ran: report.ran.length }, "upstream reconciler pass");
      },
      onError: (error) => logger.warn({ err: error }, "upstream reconciler pass failed"),
      // Each org is due once a period: a tick's pass longer than that no longer fits it.
      overrunAfterMs: intervalMs,
      onOverrun: (durationMs) => reportOverrun(this.#deps, "upstreamReconciler", durationMs, intervalMs),
    });
  }

  /** Stops the timer and waits for a pass in flight. */
  async stop(): Promise<void> {
    // Safe to call twice: every caller waits for the pass in flight.
    await this.#loop?.stop();
    this.#loop = undefined;
  }
}
