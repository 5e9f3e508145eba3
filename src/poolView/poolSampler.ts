import { DEFAULT_POOL_SAMPLE_INTERVAL_MS } from "../config/env.ts";
import type { CredentialStore } from "../credentials/credentialStore.ts";
import { UPSTREAM_AUDIENCE } from "../credentials/credentialStore.ts";
import { findLatestOrgCredential } from "../db/credentials/findLatestOrgCredential.ts";
import type { Db } from "../db/database.ts";
import { listOrgsWithBrands } from "../db/orgs/listOrgsWithBrands.ts";
import type { Clock } from "../domain/clock.ts";
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
  operatorBearer?: string;
}

export interface PoolSampleReport {
  sampled: number;
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
 * memory for the read. Orgs are sampled one at a time: a pass is a handful of GETs per org, and
 * one slow org must not stampede the upstream. The periodic pass spreads its orgs over most of its
 * interval (domain/passPacing.ts) instead of reading them all at its start.
 */
export class PoolSampler {
  readonly #deps: PoolSamplerDeps;
  #loop: PeriodicLoop | undefined;

  constructor(deps: PoolSamplerDeps) {
    this.#deps = deps;
  }

  /**
   * One pass over every org with brands, as background work (ADR 0019). Never throws for one org's
   * failure. With `pace`, org i of n starts no sooner than i × spreadMs / n after the pass began;
   * without it (a CLI run, a test) the orgs go one after another.
   */
  sampleAll(pace?: PassPace): Promise<PoolSampleReport> {
    return asBackgroundWork(() => this.#sampleAll(pace));
  }

  async #sampleAll(pace: PassPace | undefined): Promise<PoolSampleReport> {
    const { db, clock, logger, poolView } = this.#deps;
    const report: PoolSampleReport = { sampled: 0, skipped: 0, failed: 0 };
    const startedAt = clock.now().getTime();
    const orgs = await listOrgsWithBrands(db);
    for (const [index, org] of orgs.entries()) {
      if (!(await awaitTurn(clock, pace, startedAt, index, orgs.length))) break;
      const log = logger.child({ orgId: org.id });
      try {
        const bearer = await this.#bearerFor(org.id);
        if (typeof bearer !== "string") {
          log.debug({ reason: bearer.reason }, "pool sampler: no live credential for this org; skipped");
          report.skipped += 1;
          continue;
        }
        await poolView.sample(org, bearer);
        report.sampled += 1;
      } catch (error) {
        log.warn({ err: error }, "pool sampler: could not sample this org's pool");
        report.failed += 1;
      }
    }
    return report;
  }

  /** The operator's token, else the org's latest live member credential (or why there is none). */
  async #bearerFor(orgId: string): Promise<string | { reason: string }> {
    const { db, clock, credentials, operatorBearer } = this.#deps;
    if (operatorBearer) return operatorBearer;
    const credentialId = await findLatestOrgCredential(db, {
      orgId,
      audience: UPSTREAM_AUDIENCE,
      now: clock.now(),
    });
    const exchanged = credentialId ? await credentials.exchange(credentialId) : undefined;
    if (exchanged?.status === "ok") return exchanged.token;
    return { reason: exchanged?.reason ?? "missing" };
  }

  /** Samples every `intervalMs` (the first pass after one interval); passes never overlap. */
  start(intervalMs: number = DEFAULT_POOL_SAMPLE_INTERVAL_MS): void {
    if (this.#loop) return;
    this.#loop = startPeriodic({
      everyMs: intervalMs,
      pass: async (signal) =>
        this.#deps.logger.debug(
          await this.sampleAll({ spreadMs: PASS_SPREAD_SHARE * intervalMs, signal }),
          "pool sampler pass",
        ),
      onError: (error) => this.#deps.logger.warn({ err: error }, "pool sampler pass failed"),
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
