import type { Principal } from "../auth/principal.ts";
import { durationMs, type FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import { findJob } from "../db/jobs/findJob.ts";
import type { JobRecordError, JobRow, JobStatus } from "../db/jobs/jobRow.ts";
import { listJobLineage } from "../db/jobs/listJobLineage.ts";
import { listOrgJobs, type OrgJobRow } from "../db/jobs/listOrgJobs.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { isJobStuck } from "../domain/jobActivity.ts";
import type { OrgService } from "../orgs/orgService.ts";
import { NEEDS_REAUTH } from "./jobError.ts";
import { decodeJobCursor, encodeJobCursor } from "./jobListCursor.ts";
import { DEFAULT_STALL_GRACE_MS } from "./reconciler.ts";
import type { JobRegistry } from "./registry.ts";

export const JOB_LIST_DEFAULT_LIMIT = 50;
export const JOB_LIST_MAX_LIMIT = 200;
/** A timeline shows at most this many hops (a ten-minute settle takes a few dozen). */
export const TIMELINE_MAX_HOPS = 200;

export interface JobErrorView {
  code: string;
  message: string;
  retryable: boolean;
  needsReauth: boolean;
}

/** One job of an org's list: the poll's allowlist (no metadata, result or credential) plus its shape. */
export interface JobSummary {
  jobId: string;
  jobType: string;
  brandId: string | null;
  status: JobStatus;
  error: JobErrorView | null;
  /** IN_PROGRESS and untouched for the stall grace (src/domain/jobActivity.ts). */
  stuck: boolean;
  hops: number;
  /**
   * The market a job works on (generation jobs, market creation), from its metadata: only these
   * two values leave the server, and only when they are well-formed.
   */
  market: JobMarket | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface JobMarket {
  geoTargetId: number;
  languageCode: string;
}

export interface JobListQuery {
  status?: JobStatus;
  /** A public type (e.g. `provisionWorkspace`); a type no handler claims matches as stored. */
  type?: string;
  brandId?: string;
  limit?: number;
  cursor?: string;
}

export interface JobListPage {
  items: JobSummary[];
  /** Pass as `cursor` for the next (older) page; `null` on the last page. */
  nextCursor: string | null;
}

/** One record of a lineage, in a timeline. */
export interface JobHop {
  jobId: string;
  jobType: string;
  /** How this record came to be: the job's first record, or a requeue or chain of the previous one. */
  via: "start" | "requeue" | "chain";
  status: JobStatus;
  error: JobErrorView | null;
  attempts: number;
  stuck: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface JobTimeline {
  job: JobSummary;
  hops: JobHop[];
  /** More hops exist than a timeline shows (the first TIMELINE_MAX_HOPS are shown). */
  truncated: boolean;
}

export interface JobListingDeps {
  db: Db;
  clock: Clock;
  orgs: OrgService;
  registry: JobRegistry;
  env?: FlagSource;
}

function marketOf(market: OrgJobRow["market"]): JobMarket | null {
  if (!market) return null;
  const { geoTargetId, languageCode } = market;
  if (typeof geoTargetId !== "number" || !Number.isInteger(geoTargetId) || geoTargetId <= 0) return null;
  if (typeof languageCode !== "string" || !/^[A-Za-z]{2,3}$/.test(languageCode)) return null;
  return { geoTargetId, languageCode: languageCode.toLowerCase() };
}

function errorView(error: JobRecordError | null, status: JobStatus): JobErrorView | null {
  if (status !== "FAILED" || !error) return null;
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    needsReauth: error.code === NEEDS_REAUTH,
  };
}

/**
 * An org's jobs for people watching them (the console's Jobs page): the list with filters and a
 * cursor, and one job's lineage as a timeline. Tenancy as everywhere: an org the caller may not
 * access, and a job of another org, are `notFound`.
 */
export class JobListing {
  readonly #deps: JobListingDeps;

  constructor(deps: JobListingDeps) {
    this.#deps = deps;
  }

  async list(principal: Principal, orgId: string, query: JobListQuery = {}): Promise<JobListPage> {
    await this.#deps.orgs.getAccessible(principal, orgId);
    const after = query.cursor === undefined ? undefined : decodeJobCursor(query.cursor);
    if (query.cursor !== undefined && !after) {
      throw new ServiceError("invalidRequest", { message: "cursor is not one this list gave out" });
    }
    const limit = Math.min(
      Math.max(1, Math.trunc(query.limit ?? JOB_LIST_DEFAULT_LIMIT)),
      JOB_LIST_MAX_LIMIT,
    );
    const rows = await listOrgJobs(this.#deps.db, {
      orgId,
      types: query.type === undefined ? undefined : this.#internalTypesOf(query.type),
      status: query.status,
      brandId: query.brandId,
      followTypes: this.#followTypes(),
      after,
      // One more than asked tells whether an older page exists.
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => this.#summaryOf(row)),
      nextCursor: rows.length > limit && last ? encodeJobCursor(last) : null,
    };
  }

  /** A job's lineage, oldest hop first; `jobId` may name the job or any of its hops. */
  async timeline(principal: Principal, orgId: string, jobId: string): Promise<JobTimeline> {
    await this.#deps.orgs.getAccessible(principal, orgId);
    const asked = await findJob(this.#deps.db, jobId);
    if (!asked || asked.orgId !== orgId) throw new ServiceError("notFound");
    const rootJobId = asked.rootJobId ?? asked.id;
    const [root] = await listOrgJobs(this.#deps.db, {
      orgId,
      rootJobId,
      followTypes: this.#followTypes(),
      limit: 1,
    });
    if (!root) throw new ServiceError("notFound");
    const records = await listJobLineage(this.#deps.db, { rootJobId, limit: TIMELINE_MAX_HOPS });
    const sameJob = records.filter((record) => record.orgId === orgId && record.brandId === root.brandId);
    return {
      job: this.#summaryOf(root),
      hops: this.#hopsOf(sameJob),
      truncated: root.hops > records.length,
    };
  }

  #hopsOf(records: JobRow[]): JobHop[] {
    const now = this.#deps.clock.now();
    const graceMs = this.#stallGraceMs();
    const cameFrom = new Map<string, JobRow>();
    for (const record of records) if (record.nextJobId) cameFrom.set(record.nextJobId, record);
    return records.map((record) => {
      const previous = cameFrom.get(record.id);
      return {
        jobId: record.id,
        jobType: this.#deps.registry.publicTypeOf(record.type),
        via: previous ? handOffKind(previous, record) : "start",
        status: record.status,
        error: errorView(record.error, record.status),
        attempts: record.attempts,
        stuck: isJobStuck({ ...record, leased: record.leaseToken !== null }, now, graceMs),
        createdAt: record.createdAt,
        updatedAt: record.updatedAt,
      };
    });
  }

  #summaryOf(row: OrgJobRow): JobSummary {
    const { effective } = row;
    return {
      jobId: row.id,
      jobType: this.#deps.registry.publicTypeOf(row.type),
      brandId: row.brandId,
      status: effective.status,
      error: errorView(effective.error, effective.status),
      stuck: isJobStuck(effective, this.#deps.clock.now(), this.#stallGraceMs()),
      hops: row.hops,
      market: marketOf(row.market),
      createdAt: row.createdAt,
      updatedAt: effective.updatedAt,
    };
  }

  /** Internal types shown under this public name; an unclaimed name matches records stored as such. */
  #internalTypesOf(publicType: string): string[] {
    const claimed = this.#deps.registry
      .all()
      .filter((handler) => handler.publicType === publicType)
      .map((handler) => handler.type);
    return claimed.length > 0 ? claimed : [publicType];
  }

  /** Types whose poll reports the lineage's last hop (spec/provisioning.md §6). */
  #followTypes(): string[] {
    return this.#deps.registry
      .types()
      .filter((type) => this.#deps.registry.familyOf(type) === "provisioning");
  }

  #stallGraceMs(): number {
    return durationMs("SERENITY_JOB_STALL_GRACE_MS", DEFAULT_STALL_GRACE_MS, this.#deps.env ?? process.env);
  }
}

/** A successor of the same type is a requeue unless its predecessor said it chained. */
function handOffKind(previous: JobRow, next: JobRow): "requeue" | "chain" {
  if (previous.result?.chainedJobId === next.id) return "chain";
  if (previous.result?.requeuedJobId === next.id) return "requeue";
  return previous.type === next.type ? "requeue" : "chain";
}
