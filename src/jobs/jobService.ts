import { randomUUID } from "node:crypto";

import type { Principal } from "../auth/principal.ts";
import { loadBrandContext } from "../brands/brandContext.ts";
import type { CredentialStore } from "../credentials/credentialStore.ts";
import type { Db, DbExecutor } from "../db/database.ts";
import { findJob } from "../db/jobs/findJob.ts";
import { findLineageTail } from "../db/jobs/findLineageTail.ts";
import type { JobRow, JobStatus } from "../db/jobs/jobRow.ts";
import { reopenJobForReauth } from "../db/jobs/reopenJobForReauth.ts";
import { countLiveWorkers } from "../db/workerHeartbeats/countLiveWorkers.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { JobMetadata } from "./handler.ts";
import { NEEDS_REAUTH } from "./jobError.ts";
import { createJobRecord } from "./jobRecords.ts";
import type { JobQueue } from "./queue.ts";
import type { JobRegistry } from "./registry.ts";

/** A poll follows at most this many requeue/chain hand-offs (spec/provisioning.md §6). */
export const MAX_POLL_HOPS = 10;

export interface JobServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  registry: JobRegistry;
  queue: JobQueue;
  credentials: CredentialStore;
  /** Tenancy of the brand-scoped poll and reauth. */
  orgs: OrgService;
  maxPollHops?: number;
}

/** What a client may see of a job: an explicit allowlist (never metadata or credentials). */
export interface JobState {
  jobId: string;
  jobType: string;
  status: JobStatus;
  result: Record<string, unknown> | null;
  error: { code: string; message: string; retryable: boolean; needsReauth: boolean } | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SubmitJobInput {
  /** Defaults to a random UUID; pass a deterministic one to make the submit idempotent. */
  id?: string;
  type: string;
  orgId: string;
  brandId: string | null;
  metadata: JobMetadata;
  /** The user (`sub`) the job acts for. */
  createdBy: string | null;
  /** The user's upstream token, sealed now (never stored in the clear). */
  credentialToken?: string;
  delayMs?: number;
}

export interface JobLookupOptions {
  /** Only these internal types are visible through this call (others are 404). */
  types?: readonly string[];
}

/**
 * Jobs as clients and producers see them: submit (record + message in one transaction), the
 * brand-scoped poll that follows provisioning hand-offs, and re-authentication of a job that
 * failed NEEDS_REAUTH. Tenancy: an inaccessible org, a foreign brand and a job of another brand
 * all answer `notFound`.
 */
export class JobService {
  readonly registry: JobRegistry;
  readonly queue: JobQueue;
  readonly credentials: CredentialStore;
  readonly #deps: JobServiceDeps;

  constructor(deps: JobServiceDeps) {
    this.#deps = deps;
    this.registry = deps.registry;
    this.queue = deps.queue;
    this.credentials = deps.credentials;
  }

  /**
   * Creates the record (sealing the credential if given) and enqueues it, atomically; joins the
   * caller's transaction when `db` is given. `created: false` when the id already exists (nothing
   * is sealed or enqueued then).
   */
  async submit(
    input: SubmitJobInput,
    options: { db?: DbExecutor } = {},
  ): Promise<{ jobId: string; created: boolean }> {
    const jobId = input.id ?? randomUUID();
    const ownerSub = input.createdBy;
    if (input.credentialToken !== undefined && !ownerSub) {
      throw new Error("A job that carries a credential needs createdBy (its owner).");
    }
    const exists = Symbol("exists");
    try {
      await (options.db ?? this.#deps.db).transaction(async (tx) => {
        const created = await createJobRecord(tx, this, {
          id: jobId,
          type: input.type,
          orgId: input.orgId,
          brandId: input.brandId,
          metadata: input.metadata,
          createdBy: input.createdBy,
          ...(input.credentialToken !== undefined ? { credentialToken: input.credentialToken } : {}),
          delayMs: input.delayMs,
          now: this.#deps.clock.databaseTime?.(),
        });
        // Roll the savepoint back so a credential sealed for a duplicate never lingers.
        if (!created) throw exists;
      });
    } catch (error) {
      if (error === exists) return { jobId, created: false };
      throw error;
    }
    return { jobId, created: true };
  }

  /** The job as the client sees it; provisioning-family jobs report their effective last hop. */
  async getForBrand(
    principal: Principal,
    orgId: string,
    brandId: string,
    jobId: string,
    options: JobLookupOptions = {},
  ): Promise<JobState> {
    const requested = await this.#findOwned(principal, orgId, brandId, jobId, options);
    const { hop, beyondBound } = await this.#effectiveHop(requested);
    return this.#stateOf(requested, hop, beyondBound);
  }

  /**
   * Resumes a job that FAILED with NEEDS_REAUTH using the caller's fresh bearer: only its own
   * user may; the new credential is sealed first, then one transaction compare-and-sets the job
   * back to IN_PROGRESS with it and enqueues the same job id. The loser of a race gets
   * `invalidState` and its sealed credential is deleted.
   */
  async reauth(
    principal: Principal,
    orgId: string,
    brandId: string,
    jobId: string,
    options: JobLookupOptions = {},
  ): Promise<{ jobId: string; jobType: string; status: "IN_PROGRESS" }> {
    const requested = await this.#findOwned(principal, orgId, brandId, jobId, options);
    const { hop: target } = await this.#effectiveHop(requested);
    if (target.createdBy !== principal.sub) throw new ServiceError("forbidden");
    if (target.status !== "FAILED" || target.error?.code !== NEEDS_REAUTH)
      throw new ServiceError("invalidState");

    const credentialId = await this.credentials.seal(principal.sub, principal.bearer);
    let reopened: JobRow | undefined;
    try {
      reopened = await this.#deps.db.transaction(async (tx) => {
        const row = await reopenJobForReauth(tx, {
          jobId: target.id,
          credentialId,
          now: this.#deps.clock.databaseTime?.(),
        });
        if (row) await this.queue.enqueue(row.id, { db: tx });
        return row;
      });
    } catch (error) {
      await this.credentials.delete(credentialId).catch(() => {});
      throw error;
    }
    if (!reopened) {
      await this.credentials.delete(credentialId);
      throw new ServiceError("invalidState");
    }
    this.#deps.logger.info(
      { jobId: target.id, requestedJobId: requested.id },
      "job re-authenticated and resumed",
    );
    return {
      jobId: requested.id,
      jobType: this.registry.publicTypeOf(requested.type),
      status: "IN_PROGRESS",
    };
  }

  /** Whether a live worker handling `jobType` sent a heartbeat within `withinMs` (readiness gates). */
  async hasLiveWorker(jobType: string, withinMs = 60_000): Promise<boolean> {
    const seenSince = new Date(this.#deps.clock.now().getTime() - withinMs);
    return (await countLiveWorkers(this.#deps.db, { jobType, seenSince })) > 0;
  }

  async #findOwned(
    principal: Principal,
    orgId: string,
    brandId: string,
    jobId: string,
    options: JobLookupOptions,
  ): Promise<JobRow> {
    await loadBrandContext(this.#deps, principal, orgId, brandId);
    const job = await findJob(this.#deps.db, jobId);
    if (!job || !ownedBy(job, orgId, brandId)) throw new ServiceError("notFound");
    if (options.types && !options.types.includes(job.type)) throw new ServiceError("notFound");
    return job;
  }

  /**
   * Walks COMPLETED hand-offs (`requeuedJobId`/`chainedJobId`) of a provisioning-family job, at
   * most `maxPollHops`, re-checking at every hop that it belongs to the same brand. A dangling or
   * foreign id stops at the last job found.
   *
   * A settle of several minutes takes 30+ requeues, more than the walk may follow. When the walk
   * ends on a record that still hands off, the poll jumps to the newest record of the same lineage
   * (one indexed read on `root_job_id`, ADR 0007), ownership checked again. `beyondBound`: even
   * that found nothing usable — the chain is not done as far as we may tell.
   */
  async #effectiveHop(job: JobRow): Promise<{ hop: JobRow; beyondBound: boolean }> {
    if (this.registry.familyOf(job.type) !== "provisioning") return { hop: job, beyondBound: false };
    const maxHops = this.#deps.maxPollHops ?? MAX_POLL_HOPS;
    let hop = job;
    for (let hops = 0; hop.status === "COMPLETED"; hops++) {
      const nextId = successorOf(hop);
      if (!nextId) break;
      if (hops >= maxHops) return this.#lineageTail(job, hop);
      const next = await findJob(this.#deps.db, nextId);
      if (!next || !ownedBy(next, job.orgId, job.brandId)) break;
      hop = next;
    }
    return { hop, beyondBound: false };
  }

  /** The last hop of `job`'s lineage, reached past the walk's bound from `walkedTo`. */
  async #lineageTail(job: JobRow, walkedTo: JobRow): Promise<{ hop: JobRow; beyondBound: boolean }> {
    const root = walkedTo.rootJobId ?? job.rootJobId ?? job.id;
    const tail = await findLineageTail(this.#deps.db, root);
    if (!tail || !ownedBy(tail, job.orgId, job.brandId)) return { hop: walkedTo, beyondBound: true };
    // A tail that still names a successor is inconsistent (the link is written with the insert).
    if (tail.status === "COMPLETED" && successorOf(tail)) return { hop: walkedTo, beyondBound: true };
    return { hop: tail, beyondBound: false };
  }

  #stateOf(requested: JobRow, hop: JobRow, beyondBound: boolean): JobState {
    const status: JobStatus = beyondBound ? "IN_PROGRESS" : hop.status;
    const error = status === "FAILED" ? hop.error : null;
    return {
      jobId: requested.id,
      jobType: this.registry.publicTypeOf(requested.type),
      status,
      result: status === "COMPLETED" ? (hop.result ?? {}) : null,
      error: error
        ? {
            code: error.code,
            message: error.message,
            retryable: error.retryable,
            needsReauth: error.code === NEEDS_REAUTH,
          }
        : null,
      createdAt: requested.createdAt,
      updatedAt: hop.updatedAt,
    };
  }
}

function ownedBy(job: JobRow, orgId: string, brandId: string | null): boolean {
  return job.orgId === orgId && job.brandId === brandId;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function successorOf(job: JobRow): string | undefined {
  const next = job.result?.requeuedJobId ?? job.result?.chainedJobId;
  return typeof next === "string" && UUID.test(next) ? next : undefined;
}
