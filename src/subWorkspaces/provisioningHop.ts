import type { BrandRow } from "../db/brands/brandRow.ts";
import { failProvisioningAttempt } from "../db/brands/failProvisioningAttempt.ts";
import { findBrandById } from "../db/brands/findBrandById.ts";
import { promoteProvisioningReady } from "../db/brands/promoteProvisioningReady.ts";
import { recordProvisioningJobId } from "../db/brands/recordProvisioningJobId.ts";
import type { Db } from "../db/database.ts";
import {
  PROVISIONING_ERROR_SENTENCES,
  type ProvisioningFailureReason,
} from "../domain/provisioningAttempt.ts";
import { nextPollDelayMs } from "../domain/requeueLadder.ts";
import { GatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { JobContext } from "../jobs/handler.ts";
import { JobError, LeaseLostError } from "../jobs/jobError.ts";
import { findJobRecord } from "../jobs/jobRecords.ts";
import type { BrandLease } from "../locks/brandLease.ts";
import type { EventBus, ServiceEvents } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { chooseCandidate, OwnedCandidate } from "./attemptCandidate.ts";
import { DeliveryFence } from "./deliveryFence.ts";
import { asJobFailure, isReauthFailure } from "./provisioningJobErrors.ts";
import type { ProvisionWorkspaceMetadata } from "./provisioningJobTypes.ts";
import { provisionSettleBudgetMs } from "./provisioningSettings.ts";
import { WorkspaceLifecycle } from "./workspaceLifecycle.ts";

export interface ProvisioningHopDeps {
  db: Db;
  /** A hop runs under the brand's lease (docs/decisions/0015). */
  brandLease: BrandLease;
  gateway: Pick<GatewayClient, "users" | "projects">;
  events: EventBus;
  /** Where SERENITY_PROVISION_SETTLE_BUDGET_MS is read (per hop); default process.env. */
  env?: Record<string, string | undefined>;
  /** Delay before the next poll, from the time since the candidate was created (default: the ladder). */
  nextPollDelayMs?: (elapsedSinceCreateMs: number) => number;
  /** Waits between the tries of enqueueing the chained job after a promote (default 200, 400 ms). */
  chainRetryDelaysMs?: readonly number[];
}

/** Three tries in all: the first, then one after each delay. */
const CHAIN_RETRY_DELAYS_MS = [200, 400] as const;

/**
 * How a hop ended: handed on to its next hop or its chained job, or done — the brand provisioned
 * with nothing to chain, or the attempt no longer this hop's to work on. The job turns it into the
 * record's result (hopResult.ts).
 */
export type HopOutcome =
  | { kind: "requeued"; requeuedJobId: string }
  | { kind: "chained"; chainedJobId: string }
  | { kind: "provisioned" }
  | { kind: "superseded" };

/** Thrown by a hop after it settled the attempt itself: the catch-all must not touch it again. */
class SettledFailure extends JobError {}

/**
 * One delivery of the `provision-workspace` job (spec/provisioning.md §5). At most one
 * create-or-adopt and one status read per hop; it never sleeps for the upstream — a workspace that
 * is not ready yet is looked at again by the next hop, after the ladder's delay.
 *
 * Every brand write carries the attempt id (T2, T4, T5, T3), so a stale or superseded hop can
 * never overwrite a newer attempt. Cleanup only ever empties a candidate this attempt created
 * itself (`freshlyCreated` in the metadata), never an adopted one, never a promoted one.
 *
 * The attempt id does not tell two deliveries of the same hop apart, so every gateway call
 * carries the job's abort signal (a timed-out hop stops talking upstream), and T4, T5 and the
 * cleanup first check that this delivery still holds its lease (DeliveryFence).
 */
export async function runProvisioningHop(
  deps: ProvisioningHopDeps,
  ctx: JobContext<ProvisionWorkspaceMetadata>,
): Promise<HopOutcome> {
  const hop = new Hop(deps, ctx);
  return hop.run();
}

class Hop {
  readonly #deps: ProvisioningHopDeps;
  readonly #ctx: JobContext<ProvisionWorkspaceMetadata>;
  readonly #log: Logger;
  readonly #lifecycle: WorkspaceLifecycle;
  readonly #fence: DeliveryFence;
  /** The candidate this attempt created itself, if any: the only workspace cleanup may empty. */
  readonly #owned: OwnedCandidate;
  #bearer: string | undefined;
  #promoted = false;
  #handedOff = false;

  constructor(deps: ProvisioningHopDeps, ctx: JobContext<ProvisionWorkspaceMetadata>) {
    this.#deps = deps;
    this.#ctx = ctx;
    const { attemptId, hop } = ctx.metadata;
    this.#log = ctx.logger.child({ attemptId, hop });
    this.#lifecycle = new WorkspaceLifecycle({
      db: deps.db,
      clock: ctx.clock,
      gateway: deps.gateway,
      logger: this.#log,
      signal: ctx.signal,
    });
    this.#fence = new DeliveryFence(ctx, this.#log);
    const { candidateWorkspaceId, freshlyCreated } = ctx.metadata;
    this.#owned = new OwnedCandidate(
      {
        db: deps.db,
        lifecycle: this.#lifecycle,
        log: this.#log,
        fence: this.#fence,
        token: () => this.#token(),
      },
      candidateWorkspaceId && freshlyCreated ? candidateWorkspaceId : undefined,
    );
  }

  async run(): Promise<HopOutcome> {
    try {
      return await this.#run();
    } catch (error) {
      // A timeout or shutdown abort is the runner's to handle (retry, release): touch nothing.
      if (this.#ctx.signal.aborted) throw this.#ctx.signal.reason;
      if (error instanceof StandDown) return this.#standDown("superseded");
      if (error instanceof SettledFailure || error instanceof LeaseLostError) throw error;
      throw await this.#unexpected(error);
    }
  }

  async #run(): Promise<HopOutcome> {
    const { db } = this.#deps;
    const metadata = this.#ctx.metadata;

    // A previous delivery of this very record handed off and died before completing it.
    const handedOff = await this.#earlierHandOff();
    if (handedOff) return handedOff;

    // 1. Currency.
    const brand = await findBrandById(db, metadata.brandId);
    if (!brand || brand.status === "deleted" || brand.provisioningAttemptId !== metadata.attemptId) {
      this.#log.info("provisioning attempt superseded; standing down");
      await this.#cleanup();
      return this.#standDown("superseded");
    }
    // 2. Terminal already.
    if (brand.provisioningStatus === "failed") {
      const cancelled = brand.provisioningError === PROVISIONING_ERROR_SENTENCES.deactivated;
      this.#log.info(
        { cancelled },
        cancelled ? "provisioning attempt cancelled by a deactivate" : "provisioning attempt already failed",
      );
      await this.#cleanup();
      return this.#standDown(cancelled ? "cancelled" : undefined);
    }
    if (brand.provisioningStatus === "ready") {
      // A redelivery of a hop that promoted: nothing upstream to do. If it died before the chained
      // job went out (the hand-off check above found none), the chain is still owed.
      this.#log.info("redelivery of a promoted provisioning hop");
      this.#promoted = true;
      return this.#afterPromote(brand);
    }

    // 3. Candidate. A transient upstream failure of the create-or-adopt is not the attempt's end:
    // the next hop looks again (and adopts what this one may have made), within the settle budget.
    let candidate: string | undefined;
    try {
      candidate = await chooseCandidate(
        { db, lifecycle: this.#lifecycle, log: this.#log, owned: this.#owned, token: () => this.#token() },
        this.#ctx,
        brand,
      );
    } catch (error) {
      if (!(error instanceof GatewayError && error.transient) || this.#ctx.signal.aborted) throw error;
      this.#log.warn({ ...error.toLog() }, "create-or-adopt failed transiently; the next hop tries again");
      return this.#notReady();
    }
    if (!candidate) {
      await this.#cleanup();
      return this.#standDown("superseded");
    }

    // 4. Poll once.
    const state = await this.#lifecycle.readState(await this.#token(), candidate);
    if (state === "ready") return this.#promote(candidate);
    if (state === "terminal") {
      await this.#fail("upstreamFailed", "subworkspaceCreationFailed", { cleanup: false });
    }
    return this.#notReady();
  }

  async #earlierHandOff(): Promise<HopOutcome | undefined> {
    const nextJobId = this.#ctx.job.nextJobId;
    if (!nextJobId) return undefined;
    const next = await findJobRecord(this.#deps.db, nextJobId);
    this.#handedOff = true;
    this.#log.info({ nextJobId }, "hop already handed off; completing it");
    return next?.type === this.#ctx.job.type
      ? { kind: "requeued", requeuedJobId: nextJobId }
      : { kind: "chained", chainedJobId: nextJobId };
  }

  async #promote(candidate: string): Promise<HopOutcome> {
    const metadata = this.#ctx.metadata;
    await this.#fence.assert();
    const promoted = await promoteProvisioningReady(this.#deps.db, {
      brandId: metadata.brandId,
      attemptId: metadata.attemptId,
      now: this.#ctx.clock.databaseTime?.(),
    });
    if (promoted.outcome === "promoted") {
      this.#promoted = true;
      this.#emit("ready");
      this.#log.info({ workspaceId: candidate }, "sub-workspace ready; brand promoted");
      return this.#afterPromote(promoted.brand);
    }
    if (promoted.outcome === "superseded") {
      // Another brand already points at this workspace: it is theirs, never clean it up.
      this.#owned.disown();
      this.#log.warn({ workspaceId: candidate }, "the candidate is another brand's workspace");
      const failed = await this.#failAttempt("claimedElsewhere");
      return this.#standDown(failed ? "superseded" : undefined);
    }
    const current = await findBrandById(this.#deps.db, metadata.brandId);
    const cancelled =
      current?.provisioningAttemptId === metadata.attemptId &&
      current.provisioningStatus === "failed" &&
      current.provisioningError === PROVISIONING_ERROR_SENTENCES.deactivated;
    this.#log.info({ cancelled }, "promote lost; standing down");
    await this.#cleanup();
    return this.#standDown(cancelled ? "cancelled" : "superseded");
  }

  /**
   * After T4: enqueue the chained job, three tries with a short backoff. If it cannot go out the
   * job FAILS (never report success for work that will not run) while the brand stays ready —
   * a promoted workspace is never cleaned up.
   */
  async #afterPromote(brand: BrandRow): Promise<HopOutcome> {
    const chained = this.#ctx.metadata.chained;
    if (!chained) return { kind: "provisioned" };
    const delays = this.#deps.chainRetryDelaysMs ?? CHAIN_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const { chainedJobId } = await this.#ctx.chain({
          type: chained.type,
          metadata: { ...chained.metadata, brandId: brand.id, workspaceId: brand.subWorkspaceId },
        });
        this.#handedOff = true;
        return { kind: "chained", chainedJobId };
      } catch (error) {
        if (error instanceof LeaseLostError) throw error;
        this.#log.warn({ err: error, attempt: attempt + 1 }, "could not enqueue the chained job");
        if (attempt >= delays.length) {
          throw new SettledFailure("chained_job_enqueue_failed", { retryable: false, cause: error });
        }
        await this.#ctx.clock.sleep(delays[attempt]!, this.#ctx.signal);
      }
    }
  }

  async #notReady(): Promise<HopOutcome> {
    const metadata = this.#ctx.metadata;
    const now = this.#ctx.clock.now().getTime();
    const createdAtMs = this.#ctx.metadata.createdAtMs ?? now;
    const elapsed = Math.max(0, now - createdAtMs);
    if (elapsed >= provisionSettleBudgetMs(this.#deps.env)) {
      this.#log.warn({ elapsedMs: elapsed }, "sub-workspace did not settle within the budget");
      // T5 first, cleanup only if it won: until then the candidate is our own live claim, and a
      // lost T5 means a newer state (perhaps a newer attempt that adopted it) owns the workspace.
      await this.#fail("didNotSettle", "subworkspaceCreationTimeout", { cleanup: true });
    }
    const delayMs = (this.#deps.nextPollDelayMs ?? nextPollDelayMs)(elapsed);
    const { requeuedJobId } = await this.#ctx.requeue({
      delayMs,
      metadata: { ...this.#ctx.metadata, hop: metadata.hop + 1, createdAtMs },
    });
    this.#handedOff = true;
    // T3, best effort: it names the live hop and keeps the attempt fresh for the stale judgement.
    await recordProvisioningJobId(this.#deps.db, {
      brandId: metadata.brandId,
      attemptId: metadata.attemptId,
      jobId: requeuedJobId,
      now: this.#ctx.clock.databaseTime?.(),
    }).catch((error: unknown) => this.#log.warn({ err: error }, "could not record the requeued job id"));
    return { kind: "requeued", requeuedJobId };
  }

  /**
   * §5.5: empty an owned candidate unless it was promoted or a hand-off already went out, fail the
   * attempt "unexpected error" unless promoted, and fail the job (not retryable: the attempt is
   * settled). An upstream 401/403 or a missing credential asks the user to sign in again instead,
   * and leaves the attempt pending so that a reauth resumes the same job.
   */
  async #unexpected(error: unknown): Promise<unknown> {
    if (isReauthFailure(error)) {
      this.#log.info("provisioning needs the user to sign in again");
      return asJobFailure(error);
    }
    this.#log.warn({ err: error }, "unexpected error while provisioning");
    if (!this.#promoted) {
      const failed = await this.#failAttempt("unexpected").catch((failure: unknown) => {
        // A late copy of the hop touches nothing: the runner records the lost lease.
        if (failure instanceof LeaseLostError || this.#ctx.signal.aborted) throw failure;
        this.#log.error({ err: failure }, "could not fail the provisioning attempt");
        return undefined;
      });
      if (failed) this.#emit("failed");
    }
    // After T5: while our attempt was pending its candidate was a live claim the cleanup skips.
    await this.#cleanup();
    return asJobFailure(error, { settled: true });
  }

  /**
   * T5 with `reason`, then (with `cleanup`) empty the owned candidate, then FAIL the job with
   * `code`; a lost T5 means a newer state won: stand down and touch nothing.
   */
  async #fail(
    reason: ProvisioningFailureReason,
    code: string,
    options: { cleanup: boolean },
  ): Promise<never> {
    const failed = await this.#failAttempt(reason);
    if (!failed) {
      this.#log.info({ reason }, "the attempt moved on before it could be failed");
      throw new StandDown();
    }
    this.#emit("failed");
    if (options.cleanup) await this.#cleanup();
    throw new SettledFailure(code, { retryable: false });
  }

  async #failAttempt(reason: ProvisioningFailureReason): Promise<BrandRow | undefined> {
    const { brandId, attemptId } = this.#ctx.metadata;
    await this.#fence.assert();
    return failProvisioningAttempt(this.#deps.db, {
      brandId,
      attemptId,
      reason,
      now: this.#ctx.clock.databaseTime?.(),
    });
  }

  /** §5 cleanup of the owned candidate, unless it was promoted or a hand-off already went out. */
  async #cleanup(): Promise<void> {
    if (this.#promoted || this.#handedOff) return;
    await this.#owned.cleanUp();
  }

  #standDown(outcome?: ServiceEvents["provisioning.attempt"]["outcome"]): HopOutcome {
    if (outcome) this.#emit(outcome);
    return { kind: "superseded" };
  }

  #emit(outcome: ServiceEvents["provisioning.attempt"]["outcome"]): void {
    this.#deps.events.emit("provisioning.attempt", { outcome });
  }

  async #token(): Promise<string> {
    this.#bearer ??= await this.#ctx.credential();
    return this.#bearer;
  }
}

/** A T5 that lost: the attempt is someone else's now. Turned into the superseded result by `run`. */
class StandDown extends Error {}
