import { failProvisioningAttempt } from "../db/brands/failProvisioningAttempt.ts";
import { findBrandById } from "../db/brands/findBrandById.ts";
import { findClaimedWorkspaces } from "../db/brands/findClaimedWorkspaces.ts";
import type { BrandRow } from "../db/brands/insertBrand.ts";
import { promoteProvisioningReady } from "../db/brands/promoteProvisioningReady.ts";
import { recordProvisioningCandidate } from "../db/brands/recordProvisioningCandidate.ts";
import { recordProvisioningJobId } from "../db/brands/recordProvisioningJobId.ts";
import type { Db } from "../db/database.ts";
import { findJob } from "../db/jobs/findJob.ts";
import { ServiceError } from "../domain/errors.ts";
import { nextPollDelayMs } from "../domain/requeueLadder.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { JobContext, JobResult } from "../jobs/handler.ts";
import { JobError, LeaseLostError } from "../jobs/jobError.ts";
import type { EventBus, ServiceEvents } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import {
  PROVISIONING_ERROR_SENTENCES,
  type ProvisioningFailureReason,
  provisionSettleBudgetMs,
} from "./attemptRules.ts";
import { asJobFailure, isReauthFailure } from "./provisioningJobErrors.ts";
import { type ProvisionWorkspaceMetadata, supersededResult } from "./provisioningJobTypes.ts";
import { WorkspaceLifecycle } from "./workspaceLifecycle.ts";

export interface ProvisioningHopDeps {
  db: Db;
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
 * The attempt id does not tell two deliveries of the same hop apart: after the handler timeout
 * (plus a grace) the runner releases the lease while this copy may still run. So every gateway
 * call carries the job's abort signal (a timed-out hop stops talking upstream), and T4, T5 and
 * the cleanup first check that this delivery still holds its lease.
 */
export async function runProvisioningHop(
  deps: ProvisioningHopDeps,
  ctx: JobContext<ProvisionWorkspaceMetadata>,
): Promise<JobResult> {
  const hop = new Hop(deps, ctx);
  return hop.run();
}

class Hop {
  readonly #deps: ProvisioningHopDeps;
  readonly #ctx: JobContext<ProvisionWorkspaceMetadata>;
  readonly #log: Logger;
  readonly #lifecycle: WorkspaceLifecycle;
  #bearer: string | undefined;
  /** The candidate this attempt created itself, if any: the only workspace cleanup may empty. */
  #owned: string | undefined;
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
    const { candidateWorkspaceId, freshlyCreated } = ctx.metadata;
    if (candidateWorkspaceId && freshlyCreated) this.#owned = candidateWorkspaceId;
  }

  async run(): Promise<JobResult> {
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

  async #run(): Promise<JobResult> {
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

    // 3. Candidate.
    const candidate = await this.#candidate(brand);
    if (!candidate) return this.#standDown("superseded");

    // 4. Poll once.
    const state = await this.#lifecycle.pollOnce(await this.#token(), candidate);
    if (state === "ready") return this.#promote(candidate);
    if (state === "terminal") {
      await this.#fail("upstreamFailed", "subworkspaceCreationFailed", { cleanup: false });
    }
    return this.#notReady();
  }

  async #earlierHandOff(): Promise<JobResult | undefined> {
    const nextJobId = this.#ctx.job.nextJobId;
    if (!nextJobId) return undefined;
    const next = await findJob(this.#deps.db, nextJobId);
    this.#handedOff = true;
    this.#log.info({ nextJobId }, "hop already handed off; completing it");
    return next?.type === this.#ctx.job.type ? { requeuedJobId: nextJobId } : { chainedJobId: nextJobId };
  }

  /**
   * The workspace this attempt waits for: the one the metadata carries; else one a previous
   * delivery of this hop recorded (T2) before dying — provenance unknown, so never cleaned up;
   * else the brand's canonical pointer (the fast path of createMarket/activate, not owned); else
   * create or adopt one. Then T2, unless the row already holds it. `undefined` = lost: stand down.
   */
  async #candidate(brand: BrandRow): Promise<string | undefined> {
    const { db } = this.#deps;
    const metadata = this.#ctx.metadata;
    let candidate = metadata.candidateWorkspaceId;
    if (!candidate) {
      let freshlyCreated = false;
      if (brand.provisioningCandidateWorkspaceId) {
        candidate = brand.provisioningCandidateWorkspaceId;
        this.#log.info(
          { workspaceId: candidate },
          "resuming with the candidate an earlier delivery recorded",
        );
      } else if (brand.subWorkspaceId) {
        candidate = brand.subWorkspaceId;
      } else {
        if (!metadata.parentWorkspaceId) throw new ServiceError("configurationError");
        const handle = await this.#lifecycle.createOrAdopt(
          await this.#token(),
          metadata.parentWorkspaceId,
          metadata.title,
          metadata.brandId,
        );
        candidate = handle.workspaceId;
        freshlyCreated = handle.freshlyCreated;
        if (freshlyCreated) this.#owned = candidate;
      }
      // Checkpoint before T2: a redelivery after a crash here knows what it created.
      await this.#ctx.saveCheckpoint({
        candidateWorkspaceId: candidate,
        freshlyCreated,
        createdAtMs: this.#ctx.clock.now().getTime(),
      });
    }
    if (brand.provisioningCandidateWorkspaceId === candidate) return candidate;
    if (brand.provisioningCandidateWorkspaceId === null) {
      const recorded = await recordProvisioningCandidate(db, {
        brandId: metadata.brandId,
        attemptId: metadata.attemptId,
        candidateWorkspaceId: candidate,
        now: this.#ctx.clock.now(),
      });
      if (recorded) return candidate;
    }
    this.#log.info(
      { workspaceId: candidate },
      "another delivery recorded the candidate first; standing down",
    );
    await this.#cleanup();
    return undefined;
  }

  async #promote(candidate: string): Promise<JobResult> {
    const metadata = this.#ctx.metadata;
    await this.#assertStillOurs();
    const promoted = await promoteProvisioningReady(this.#deps.db, {
      brandId: metadata.brandId,
      attemptId: metadata.attemptId,
      now: this.#ctx.clock.now(),
    });
    if (promoted.outcome === "promoted") {
      this.#promoted = true;
      this.#emit("ready");
      this.#log.info({ workspaceId: candidate }, "sub-workspace ready; brand promoted");
      return this.#afterPromote(promoted.brand);
    }
    if (promoted.outcome === "superseded") {
      // Another brand already points at this workspace: it is theirs, never clean it up.
      this.#owned = undefined;
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
  async #afterPromote(brand: BrandRow): Promise<JobResult> {
    const chained = this.#ctx.metadata.chained;
    if (!chained) return { status: 200, body: { brandId: brand.id, provisioning: "ready" } };
    const delays = this.#deps.chainRetryDelaysMs ?? CHAIN_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.#ctx.chain({
          type: chained.type,
          metadata: { ...chained.metadata, brandId: brand.id, workspaceId: brand.subWorkspaceId },
        });
        this.#handedOff = true;
        return result;
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

  async #notReady(): Promise<JobResult> {
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
      now: this.#ctx.clock.now(),
    }).catch((error: unknown) => this.#log.warn({ err: error }, "could not record the requeued job id"));
    return { requeuedJobId };
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
    return asJobFailure(error);
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
    await this.#assertStillOurs();
    return failProvisioningAttempt(this.#deps.db, { brandId, attemptId, reason, now: this.#ctx.clock.now() });
  }

  /**
   * Empties the candidate this attempt created, unless promoted or handed on, or claimed by now —
   * by any brand, this one included: after a cancel, a newer attempt of the same brand may have
   * adopted the very workspace (it is titled with the brand name) and promoted it. Never throws.
   */
  async #cleanup(): Promise<void> {
    const workspaceId = this.#owned;
    if (!workspaceId || this.#promoted || this.#handedOff) return;
    if (await this.#claimedNow(workspaceId)) {
      this.#log.info({ workspaceId }, "the owned candidate is claimed by now; left as it is");
      this.#owned = undefined;
      return;
    }
    if (!(await this.#stillOurs())) {
      // A newer delivery of this hop owns the attempt's work now, this candidate included.
      this.#log.info({ workspaceId }, "the hop's lease is gone; cleanup left to the delivery holding it");
      return;
    }
    let bearer: string;
    try {
      bearer = await this.#token();
    } catch {
      this.#log.warn({ workspaceId }, "no credential to empty an owned candidate; left for adoption");
      return;
    }
    const emptied = await this.#lifecycle.emptyWorkspace(bearer, workspaceId);
    this.#log.info({ workspaceId, emptied }, "cleaned up an owned candidate");
    this.#owned = undefined;
  }

  /**
   * Throws unless this delivery may still act: its signal has not fired (a timed-out hop is on its
   * way out; `run` rethrows the signal's reason) and it still holds the job's lease
   * (`LeaseLostError`). Called right before T4 and T5, which the attempt id alone cannot fence
   * against a newer delivery of the same hop.
   */
  async #assertStillOurs(): Promise<void> {
    this.#ctx.signal.throwIfAborted();
    await this.#ctx.assertLeaseHeld();
  }

  /** `#assertStillOurs` for the cleanup, which never throws: unsure counts as "not ours". */
  async #stillOurs(): Promise<boolean> {
    try {
      await this.#assertStillOurs();
      return true;
    } catch (error) {
      if (!(error instanceof LeaseLostError) && !this.#ctx.signal.aborted) {
        this.#log.warn({ err: error }, "could not check the job lease; cleanup skipped");
      }
      return false;
    }
  }

  /** Whether any brand points at the workspace or waits on it as a live candidate; unsure → yes. */
  async #claimedNow(workspaceId: string): Promise<boolean> {
    try {
      const claimed = await findClaimedWorkspaces(this.#deps.db, {
        workspaceIds: [workspaceId],
        exceptBrandId: null,
      });
      return claimed.has(workspaceId);
    } catch (error) {
      this.#log.warn({ err: error, workspaceId }, "could not read workspace claims; cleanup skipped");
      return true;
    }
  }

  #standDown(outcome?: ServiceEvents["provisioning.attempt"]["outcome"]): JobResult {
    if (outcome) this.#emit(outcome);
    return supersededResult(this.#ctx.metadata.brandId);
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
