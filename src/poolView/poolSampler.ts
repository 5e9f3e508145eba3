import { randomUUID } from "node:crypto";

import { DEFAULT_POOL_SAMPLE_INTERVAL_MS } from "../config/env.ts";
import type { CredentialStore } from "../credentials/credentialStore.ts";
import { UPSTREAM_AUDIENCE } from "../credentials/credentialStore.ts";
import { findLatestOrgCredential } from "../db/credentials/findLatestOrgCredential.ts";
import type { Db } from "../db/database.ts";
import { listOrgBackgroundState, NOTHING_RECORDED } from "../db/orgs/listOrgBackgroundState.ts";
import { listOrgsWithBrands } from "../db/orgs/listOrgsWithBrands.ts";
import type { OrgRow } from "../db/orgs/orgRow.ts";
import { claimPoolSampleRun } from "../db/poolSampleRuns/claimPoolSampleRun.ts";
import { finishPoolSampleRun } from "../db/poolSampleRuns/finishPoolSampleRun.ts";
import type { Clock } from "../domain/clock.ts";
import { type OperatorBearer, operatorBearerFor } from "../domain/operatorTokens.ts";
import { type IdleOrgSettings, orgBackgroundPace } from "../domain/orgBackgroundPace.ts";
import { awaitTurn, PASS_SPREAD_SHARE, type PassPace } from "../domain/passPacing.ts";
import { type PeriodicLoop, startPeriodic } from "../domain/periodic.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import { reportOverrun } from "../observability/backgroundPassOverrun.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { PoolViewService } from "./poolViewService.ts";

export interface PoolSamplerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  credentials: CredentialStore;
  poolView: Pick<PoolViewService, "sample">;
  /** Where an overrunning pass is reported (`background.passOverrun`). */
  events?: EventBus;
  /**
   * The operator's upstream bearer (SERENITY_UPSTREAM_TOKEN): read with first when set — it sees
   * every parent, where a member's credential ends with their jobs (spec/allocation.md §13).
   */
  operatorBearer?: OperatorBearer;
  /**
   * When an org is idle (SERENITY_IDLE_ORG_AFTER_MS): an idle org is not sampled at all, unless
   * the idle pace is off (SERENITY_IDLE_ORG_CALLS_PER_HOUR=0; docs/decisions/0042).
   */
  idle: IdleOrgSettings;
}

/**
 * A sample's lease: a process that dies mid-sample holds the org this long, so the org's next
 * sample comes at most period + lease + a tick after its last (60 + 30 + 15 s at the defaults,
 * within twice the period; the fleet bench saw 133 s with a lease of two periods). A sample that
 * outlasts its lease (a large org on a busy budget) may be taken by another worker too: a read
 * twice, never a wrong one.
 */
const sampleLeaseMs = (periodMs: number) => Math.max(MIN_SAMPLE_LEASE_MS, Math.floor(periodMs / 2));
const MIN_SAMPLE_LEASE_MS = 15_000;
/** Orgs one pass samples at once (each waits on its own account's budget). */
const SAMPLES_AT_ONCE = 4;

export interface PoolSampleReport {
  sampled: number;
  /** Idle orgs, not sampled (their gauge and history keep their last read). */
  idle?: number;
  /** Orgs another process samples, or sampled less than a period ago. */
  taken?: number;
  /** Orgs without a live stored credential to read upstream with. */
  skipped: number;
  failed: number;
}

/**
 * The periodic pool sampler: for every org with a pool and brands, reads the pool view
 * (`PoolViewService.sample`, which emits the `allocation.poolSampled` events behind the
 * `serenity_allocation_pool_free_ratio` gauge), so the request path never needs a parent read.
 *
 * Each pass also reads every sampled org's parent metering again (`PoolViewService.sample`, spec/allocation.md
 * §13): a parent that changed kind is followed within one interval, without a restart.
 *
 * Reading upstream needs a bearer, and a worker has no user: it uses the operator's token
 * (SERENITY_UPSTREAM_TOKEN) when one is configured, else the most recent live sealed credential
 * attached to a job of that org (a user who acted there lately). An org with neither is skipped
 * and logged at debug — the gauge then simply keeps its last value. The token is only held in
 * memory for the read. A pass samples at most SAMPLES_AT_ONCE orgs at once: a handful of GETs per
 * org, each paced by its account's budget, so one org waiting on a busy account does not hold the
 * others, and the pass never stampedes the upstream. The periodic pass spreads its orgs over most
 * of its tick (domain/passPacing.ts) instead of reading them all at its start.
 *
 * Proportional to change (docs/decisions/0042): an idle org (no request, job or failure within
 * SERENITY_IDLE_ORG_AFTER_MS) is not sampled — nothing moves its pool but a hand in Semrush, and a
 * write reads what it needs anyway; its first view or write brings it back. An active org is taken
 * by one process at a time, a period apart (a lease row, claimPoolSampleRun), so N workers sample
 * it once a period, not N times.
 */
export class PoolSampler {
  readonly #deps: PoolSamplerDeps;
  readonly #holder = randomUUID();
  #loop: PeriodicLoop | undefined;

  constructor(deps: PoolSamplerDeps) {
    this.#deps = deps;
  }

  /**
   * One pass over every org with brands, as background work (ADR 0019). Never throws for one org's
   * failure. With `pace`, org i of n starts no sooner than i × spreadMs / n after the pass began;
   * without it (a CLI run, a test) the orgs go one after another.
   */
  sampleAll(pace?: PassPace, options: { periodMs?: number } = {}): Promise<PoolSampleReport> {
    return asBackgroundWork(() => this.#sampleAll(pace, options.periodMs ?? 0));
  }

  async #sampleAll(pace: PassPace | undefined, periodMs: number): Promise<PoolSampleReport> {
    const { db, clock, idle } = this.#deps;
    const report: PoolSampleReport = { sampled: 0, skipped: 0, failed: 0 };
    const startedAt = clock.now().getTime();
    const orgs = await listOrgsWithBrands(db);
    const background = await listOrgBackgroundState(db, {
      now: clock.databaseTime?.(),
      lookBackMs: idle.afterMs,
    });
    const inFlight = new Set<Promise<void>>();
    for (const [index, org] of orgs.entries()) {
      if (!(await awaitTurn(clock, pace, startedAt, index, orgs.length))) break;
      const state = background.states.get(org.id) ?? NOTHING_RECORDED;
      const orgPace = orgBackgroundPace(state.activity, background.now, {
        idle,
        reconcileEveryMs: periodMs,
        lastReconcileCalls: state.lastReconcileCalls,
      });
      if (!orgPace.sample) {
        report.idle = (report.idle ?? 0) + 1;
        continue;
      }
      // A few orgs at once: one org's reads waiting on its account's budget must not hold the
      // others' (one at a time, a quarter of the fleet bench's active orgs went past twice their period).
      while (inFlight.size >= SAMPLES_AT_ONCE) await Promise.race(inFlight);
      const claimed = await claimPoolSampleRun(db, {
        orgId: org.id,
        holder: this.#holder,
        now: clock.databaseTime?.(),
        leaseMs: sampleLeaseMs(periodMs),
        periodMs,
      });
      if (!claimed) {
        report.taken = (report.taken ?? 0) + 1;
        continue;
      }
      const task: Promise<void> = this.#sampleOne(org, report).finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
    await Promise.all(inFlight);
    return report;
  }

  /** Samples one org this process holds the lease of, counts the outcome and ends its run. Never throws. */
  async #sampleOne(org: OrgRow, report: PoolSampleReport): Promise<void> {
    const { db, clock, logger, poolView } = this.#deps;
    const log = logger.child({ orgId: org.id });
    try {
      const bearer = await this.#bearerFor(org.id);
      if (typeof bearer !== "string") {
        log.debug({ reason: bearer.reason }, "pool sampler: no live credential for this org; skipped");
        report.skipped += 1;
        return;
      }
      await poolView.sample(org, bearer);
      report.sampled += 1;
    } catch (error) {
      log.warn({ err: error }, "pool sampler: could not sample this org's pool");
      report.failed += 1;
    } finally {
      await finishPoolSampleRun(db, {
        orgId: org.id,
        holder: this.#holder,
        now: clock.databaseTime?.(),
      }).catch((error: unknown) =>
        log.warn({ err: error }, "pool sampler: could not end the org's sample (its lease will expire)"),
      );
    }
  }

  /** The operator's token, else the org's latest live member credential (or why there is none). */
  async #bearerFor(orgId: string): Promise<string | { reason: string }> {
    const { db, clock, credentials, operatorBearer } = this.#deps;
    const operator = operatorBearerFor(operatorBearer, orgId);
    if (operator) return operator;
    const credentialId = await findLatestOrgCredential(db, {
      orgId,
      audience: UPSTREAM_AUDIENCE,
      now: clock.now(),
    });
    const exchanged = credentialId ? await credentials.exchange(credentialId) : undefined;
    if (exchanged?.status === "ok") return exchanged.token;
    return { reason: exchanged?.reason ?? "missing" };
  }

  /**
   * Samples each active org every `intervalMs`, whichever worker takes it: ticks a few times per
   * interval (the org's lease decides who samples and when); passes never overlap.
   */
  start(intervalMs: number = DEFAULT_POOL_SAMPLE_INTERVAL_MS): void {
    if (this.#loop) return;
    const everyMs = Math.max(50, Math.min(Math.floor(intervalMs / 4), 30_000));
    this.#loop = startPeriodic({
      everyMs,
      pass: async (signal) =>
        this.#deps.logger.debug(
          await this.sampleAll({ spreadMs: PASS_SPREAD_SHARE * everyMs, signal }, { periodMs: intervalMs }),
          "pool sampler pass",
        ),
      onError: (error) => this.#deps.logger.warn({ err: error }, "pool sampler pass failed"),
      // Each org is due once an interval: a tick's pass longer than that no longer fits it.
      overrunAfterMs: intervalMs,
      onOverrun: (durationMs) => reportOverrun(this.#deps, "poolSampler", durationMs, intervalMs),
    });
  }

  /** Stops the timer and waits for a pass in flight. */
  async stop(): Promise<void> {
    // Safe to call twice: every caller waits for the pass in flight.
    await this.#loop?.stop();
    this.#loop = undefined;
  }
}
