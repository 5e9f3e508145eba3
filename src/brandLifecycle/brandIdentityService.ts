import type { Principal } from "../auth/principal.ts";
import { loadBrandContext } from "../brands/brandContext.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import { updateBrandIdentity } from "../db/brands/updateBrandIdentity.ts";
import type { Db } from "../db/database.ts";
import { listReadyMarkets } from "../db/markets/listReadyMarkets.ts";
import { type BrandIdentity, type BrandUrl, identityProblems } from "../domain/brandIdentity.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { findJobRecord, submitKeyedJob } from "../jobs/jobRecords.ts";
import type { JobService } from "../jobs/jobService.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import {
  DELETE_BRAND_JOB,
  DELETE_BRAND_PUBLIC,
  deleteBrandJobId,
  PROPAGATE_IDENTITY_JOB,
  PROPAGATE_IDENTITY_PUBLIC,
  propagationJobId,
} from "./brandIdentityJobs.ts";

/** `PATCH /orgs/:orgId/brands/:brandId`: each field absent = kept, present = replaced whole. */
export interface BrandPatch {
  name?: string | undefined;
  domain?: string | null | undefined;
  primaryUrl?: string | null | undefined;
  aliases?: string[] | undefined;
  competitors?: { name: string; domain: string; aliases?: string[] | undefined }[] | undefined;
  urls?: BrandUrl[] | undefined;
}

export interface StartedJob {
  jobId: string;
  jobType: string;
}

export interface BrandIdentityServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  orgs: OrgService;
  jobs: Pick<JobService, "submit" | "queue" | "credentials">;
}

/** A PATCH that keeps losing the version race to others this many times answers `brandBusy`. */
const MAX_UPDATE_ROUNDS = 5;

/**
 * A brand's identity and its end (spec/api.md §5, docs/decisions/0041): PATCH writes the identity
 * in one guarded statement and starts the propagation job that makes every market follow; DELETE
 * starts the job that deactivates the brand and marks it `deleted`. Tenancy first, always.
 */
export class BrandIdentityService {
  constructor(private readonly deps: BrandIdentityServiceDeps) {}

  async update(
    principal: Principal,
    orgId: string,
    brandId: string,
    patch: BrandPatch,
  ): Promise<{ brand: BrandRow; propagation: StartedJob | null }> {
    for (let round = 0; round < MAX_UPDATE_ROUNDS; round++) {
      const { brand } = await loadBrandContext(this.deps, principal, orgId, brandId);
      const identity = mergedIdentity(brand, patch);
      const problems = identityProblems(identity);
      if (problems.length > 0) {
        throw new ServiceError("invalidRequest", {
          message: `${problems[0]!.pointer.slice(1).replaceAll("/", ".")}: ${problems[0]!.message}`,
          bodyProblems: problems.map((problem) => ({
            pointer: problem.pointer,
            code: "identityConflict",
            detail: problem.message,
          })),
        });
      }
      // A retry of a PATCH whose identity committed but whose job never started (a crash, a failed
      // submit) starts it now: one job per version, so this is idempotent; null when none is behind.
      if (sameIdentity(identity, brand)) {
        return {
          brand,
          propagation: await this.startPropagation(principal, brand, { onlyWhenBehind: true }),
        };
      }
      const updated = await updateBrandIdentity(this.deps.db, {
        orgId,
        brandId,
        expectedVersion: brand.identityVersion,
        identity,
        now: this.deps.clock.databaseTime?.(),
      });
      if (updated === "nameTaken") throw new ServiceError("brandExists");
      if (!updated) continue;
      this.deps.logger.info({ brandId, identityVersion: updated.identityVersion }, "brand identity updated");
      return { brand: updated, propagation: await this.startPropagation(principal, updated) };
    }
    throw new ServiceError("brandBusy");
  }

  /**
   * The propagation job of the brand's current identity version, when it has markets to follow
   * (one job per version, so a replay names the same job; a newer version's job supersedes an
   * older one at its next market).
   */
  async startPropagation(
    principal: Pick<Principal, "sub" | "bearer">,
    brand: BrandRow,
    options: { onlyWhenBehind?: boolean } = {},
  ): Promise<StartedJob | null> {
    // A brand with its sub-workspace always (unless only a market behind asks for it): the job
    // also gives the workspace the brand's name.
    const markets = await listReadyMarkets(this.deps.db, brand.id);
    const behind = markets.some((market) => market.identityVersion < brand.identityVersion);
    if (!behind && (options.onlyWhenBehind || brand.subWorkspaceId === null)) return null;
    const { jobId } = await this.deps.jobs.submit({
      id: propagationJobId(brand.id, brand.identityVersion),
      type: PROPAGATE_IDENTITY_JOB,
      orgId: brand.orgId,
      brandId: brand.id,
      metadata: { brandId: brand.id, identityVersion: brand.identityVersion },
      createdBy: principal.sub,
      credentialToken: principal.bearer,
    });
    return { jobId, jobType: PROPAGATE_IDENTITY_PUBLIC };
  }

  /**
   * `DELETE /orgs/:orgId/brands/:brandId` → the delete job (one per brand): a repeat answers the
   * same job, and one that FAILED (its attempts spent, say on an upstream outage) is re-armed in
   * place with the caller's credential, so the delete runs again. Its checkpoint (the retired
   * sub-workspace's id, which a first attempt may have cleared from the brand) is kept.
   */
  async delete(principal: Principal, orgId: string, brandId: string): Promise<StartedJob> {
    const { brand } = await loadBrandContext(this.deps, principal, orgId, brandId);
    const jobId = deleteBrandJobId(brand.id);
    const { db, clock, jobs } = this.deps;
    const previous = await findJobRecord(db, jobId);
    await submitKeyedJob(
      { db, clock, credentials: jobs.credentials, queue: jobs.queue },
      {
        id: jobId,
        type: DELETE_BRAND_JOB,
        orgId,
        brandId: brand.id,
        metadata: { ...previous?.metadata, brandId: brand.id },
        owner: { sub: principal.sub, bearer: principal.bearer },
      },
      (existing) => (existing.status === "FAILED" ? "rearm" : "reuse"),
    );
    this.deps.logger.info({ brandId, jobId }, "brand delete accepted");
    return { jobId, jobType: DELETE_BRAND_PUBLIC };
  }
}

/** The identity a PATCH asks for: the body's fields over the stored ones. */
export function mergedIdentity(brand: BrandRow, patch: BrandPatch): BrandIdentity {
  return {
    name: patch.name ?? brand.name,
    domain: patch.domain === undefined ? brand.domain : patch.domain,
    primaryUrl: patch.primaryUrl === undefined ? brand.primaryUrl : patch.primaryUrl,
    aliases: patch.aliases ?? brand.aliases,
    competitors:
      patch.competitors?.map((competitor) => ({
        name: competitor.name,
        domain: competitor.domain,
        aliases: competitor.aliases ?? [],
      })) ?? brand.competitors,
    // Keys in one order (jsonb keeps shorter keys first: url, kind), so comparisons are textual.
    urls: (patch.urls ?? brand.urls).map((entry) => ({ url: entry.url, kind: entry.kind })),
  };
}

/** Whether nothing a market carries changes (a PATCH that repeats the stored identity writes nothing). */
function sameIdentity(identity: BrandIdentity, brand: BrandRow): boolean {
  return (
    identity.name === brand.name &&
    identity.domain === brand.domain &&
    identity.primaryUrl === brand.primaryUrl &&
    JSON.stringify(identity.aliases) === JSON.stringify(brand.aliases) &&
    JSON.stringify(identity.competitors) === JSON.stringify(brand.competitors) &&
    JSON.stringify(identity.urls) === JSON.stringify(brand.urls)
  );
}
