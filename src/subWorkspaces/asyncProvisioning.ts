import { randomUUID } from "node:crypto";

import { beginProvisioningAttempt } from "../db/brands/beginProvisioningAttempt.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import { failProvisioningAttempt } from "../db/brands/failProvisioningAttempt.ts";
import { recordProvisioningJobId } from "../db/brands/recordProvisioningJobId.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { JobService } from "../jobs/jobService.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { applyConcurrencyGuard } from "./concurrencyGuard.ts";
import {
  ACTIVATE_BRAND_JOB,
  ACTIVATE_MARKETS_JOB,
  CREATE_MARKET_JOB,
  PROVISION_WORKSPACE_JOB,
  PROVISION_WORKSPACE_PUBLIC,
  type ProvisionWorkspaceMetadata,
} from "./provisioningJobTypes.ts";
import { provisioningStaleMs } from "./provisioningSettings.ts";

export interface AsyncProvisioningDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  jobs: Pick<JobService, "submit">;
  env?: Record<string, string | undefined>;
}

/** An asynchronous request accepted: the job to poll, and the brand as the attempt left it. */
export interface AcceptedProvisioning {
  jobId: string;
  /** The job's public type: every asynchronous provisioning request starts the workspace job. */
  jobType: typeof PROVISION_WORKSPACE_PUBLIC;
  /** Pending, with its job id. */
  brand: BrandRow;
}

/** A request's `generatePrompts`: carried to the chained job, which runs the generation producer. */
interface Generation {
  generatePrompts?: boolean | undefined;
}

function generationOf(generatePrompts: boolean | undefined): { generatePrompts?: true } {
  return generatePrompts === true ? { generatePrompts: true } : {};
}

/** Who asked: their `sub` owns the job, their bearer is sealed for the worker (spec/generation.md §6). */
export interface AsyncCaller {
  sub: string;
  bearer: string;
  requestId: string | undefined;
}

/**
 * The producers of asynchronous provisioning (spec/provisioning.md §6). Each runs the shared
 * sequence: concurrency guard → new attempt id → T1 (lost → 409) → job record + message, with the
 * user's sealed credential (failure → T5, 503) → T3 → accepted. The provisioning job then creates,
 * adopts or (fast path) polls the workspace, promotes, and chains the work the endpoint asked for.
 */
export class AsyncProvisioning {
  constructor(private readonly deps: AsyncProvisioningDeps) {}

  /** createBrand with `semrushMarket`: the brand row exists (`pending`); chain `create-market`. */
  createBrand(
    caller: AsyncCaller,
    brand: BrandRow,
    parentWorkspaceId: string,
    market: {
      market: string;
      languageCode: string;
      primaryUrl: string | null;
      modelIds?: string[];
    } & Generation,
  ): Promise<AcceptedProvisioning> {
    const { generatePrompts, ...input } = market;
    return this.#start(caller, brand, parentWorkspaceId, {
      type: CREATE_MARKET_JOB,
      metadata: { input, respondWith: "brand", ...generationOf(generatePrompts) },
    });
  }

  /** createMarket on a brand with its workspace: the job polls the pointer, then `create-market`. */
  createMarket(
    caller: AsyncCaller,
    brand: BrandRow,
    parentWorkspaceId: string,
    market: {
      market: string;
      languageCode: string;
      primaryUrl?: string | null;
      modelIds?: string[];
    } & Generation,
  ): Promise<AcceptedProvisioning> {
    const { generatePrompts, ...input } = market;
    return this.#start(caller, brand, parentWorkspaceId, {
      type: CREATE_MARKET_JOB,
      metadata: { input, respondWith: "market", ...generationOf(generatePrompts) },
    });
  }

  /**
   * activate: a brand without a workspace is provisioned and chains `activate-brand`; one with its
   * workspace gets the fast path and chains `activate-markets`. Both create the requested markets.
   */
  activate(
    caller: AsyncCaller,
    brand: BrandRow,
    parentWorkspaceId: string,
    markets: { market: string; languageCode: string }[],
    generatePrompts?: boolean,
  ): Promise<AcceptedProvisioning> {
    return this.#start(caller, brand, parentWorkspaceId, {
      type: brand.subWorkspaceId === null ? ACTIVATE_BRAND_JOB : ACTIVATE_MARKETS_JOB,
      metadata: { markets, ...generationOf(generatePrompts) },
    });
  }

  async #start(
    caller: AsyncCaller,
    brand: BrandRow,
    parentWorkspaceId: string,
    chained: NonNullable<ProvisionWorkspaceMetadata["chained"]>,
  ): Promise<AcceptedProvisioning> {
    const { db, clock } = this.deps;
    const log = this.deps.logger.child({ brandId: brand.id, requestId: caller.requestId });
    await applyConcurrencyGuard(
      { db, clock, logger: log, events: this.deps.events },
      brand,
      provisioningStaleMs(this.deps.env),
    );

    const attemptId = randomUUID();
    const begun = await beginProvisioningAttempt(db, {
      brandId: brand.id,
      attemptId,
      now: clock.databaseTime?.(),
    });
    if (!begun) throw new ServiceError("semrushProvisioningInProgress");

    const metadata: ProvisionWorkspaceMetadata = {
      brandId: brand.id,
      attemptId,
      parentWorkspaceId,
      title: brand.name,
      hop: 1,
      chained,
    };
    let jobId: string;
    try {
      ({ jobId } = await this.deps.jobs.submit({
        type: PROVISION_WORKSPACE_JOB,
        orgId: brand.orgId,
        brandId: brand.id,
        metadata,
        createdBy: caller.sub,
        credentialToken: caller.bearer,
      }));
    } catch (error) {
      log.error({ err: error, attemptId }, "could not enqueue the provisioning job");
      const failed = await failProvisioningAttempt(db, {
        brandId: brand.id,
        attemptId,
        reason: "couldNotStart",
        now: clock.databaseTime?.(),
      });
      if (failed) this.deps.events.emit("provisioning.attempt", { outcome: "failed" });
      throw error instanceof ServiceError ? error : new ServiceError("configurationError", { cause: error });
    }
    const recorded = await recordProvisioningJobId(db, {
      brandId: brand.id,
      attemptId,
      jobId,
      now: clock.databaseTime?.(),
    });
    log.info({ attemptId, jobId, chained: chained.type }, "asynchronous provisioning accepted");
    return {
      jobId,
      jobType: PROVISION_WORKSPACE_PUBLIC,
      brand: recorded ?? { ...begun, provisioningJobId: jobId },
    };
  }
}
