import type pg from "pg";

import type { AllocationDeps } from "../allocation/allocationDeps.ts";
import { AllocationService } from "../allocation/allocationService.ts";
import { createAllocationLock } from "../allocation/createAllocationLock.ts";
import { gatewayAllocationUpstream } from "../allocation/gatewayAllocationUpstream.ts";
import { parentMeteringPort } from "../allocation/parentMetering.ts";
import { withPublishRecording } from "../allocation/publishRecorder.ts";
import type { ApiServices } from "../api/appDeps.ts";
import { activateBrandJobHandler, activateMarketsJobHandler } from "../brandLifecycle/activationJobs.ts";
import { BrandIdentityService } from "../brandLifecycle/brandIdentityService.ts";
import { BrandLifecycleService } from "../brandLifecycle/brandLifecycleService.ts";
import { deleteBrandJobHandler } from "../brandLifecycle/deleteBrandJob.ts";
import { propagateIdentityJobHandler } from "../brandLifecycle/propagateIdentityJob.ts";
import { BrandService } from "../brands/brandService.ts";
import { CatalogueService } from "../catalogues/catalogueService.ts";
import type { FlagSource } from "../config/flags.ts";
import { ephemeralCredentialKey } from "../credentials/credentialKey.ts";
import { CredentialStore } from "../credentials/credentialStore.ts";
import type { CredentialKeyring } from "../credentials/keyring.ts";
import type { Db } from "../db/database.ts";
import { type Clock, systemClock } from "../domain/clock.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { OperatorBearer } from "../domain/operatorTokens.ts";
import { createUnconfiguredGatewayClient, type GatewayClient } from "../gateway/gatewayClient.ts";
import { lazyLanguageValidator } from "../generation/createPromptGenerator.ts";
import { GenerationJobs } from "../generation/generationJobs.ts";
import { GenerationProducer } from "../generation/generationProducer.ts";
import { GenerationReadiness } from "../generation/generationReadiness.ts";
import { generationJobHandler } from "../generation/job/generationJobHandler.ts";
import { PromptPreviewService } from "../generation/promptPreviewService.ts";
import { IdempotencyService } from "../idempotency/idempotencyService.ts";
import { JobListing } from "../jobs/jobListing.ts";
import { JobService } from "../jobs/jobService.ts";
import { createPgBossQueue, type JobQueue } from "../jobs/queue.ts";
import { JobRegistry } from "../jobs/registry.ts";
import { type BrandLease, createBrandLease } from "../locks/brandLease.ts";
import type { LockProvider } from "../locks/reentrantLock.ts";
import { createMarketJobHandler } from "../markets/createMarketJob.ts";
import { MarketService } from "../markets/marketService.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { OrgActivityMarks } from "../orgs/orgActivityMarks.ts";
import { OrgService } from "../orgs/orgService.ts";
import { PoolHistory } from "../poolView/poolHistory.ts";
import type { PoolRefreshPacing } from "../poolView/poolViews.ts";
import { PoolViewService } from "../poolView/poolViewService.ts";
import { PromptService } from "../prompts/promptService.ts";
import { OperatorSettings } from "../settings/operatorSettings.ts";
import { AsyncProvisioning } from "../subWorkspaces/asyncProvisioning.ts";
import type { ProvisioningHopDeps } from "../subWorkspaces/provisioningHop.ts";
import { provisionWorkspaceHandler } from "../subWorkspaces/provisionWorkspaceJob.ts";

/**
 * The services every entry point calls: the HTTP layer's set (api/appDeps.ts), which the worker
 * and the CLI use as well, and the process's brand lease (the worker's upstream reconciler takes
 * it too, ADR 0016).
 */
export type Services = ApiServices & { brandLease: BrandLease };

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  /**
   * The credential keyring (runtime: resolveCredentialKeyring(config)), or a lone key; tests get a
   * per-process key.
   */
  credentialKey?: Buffer | CredentialKeyring | Promise<Buffer | CredentialKeyring>;
  /** The job queue; defaults to pg-boss (schema `pgboss`) over `db`'s pool, without maintenance. */
  jobQueue?: JobQueue;
  /** The upstream gateway client; without one every upstream call fails `configurationError`. */
  gateway?: GatewayClient;
  /** The metered-write seam (spec/allocation.md §5); defaults to the allocation guard (a no-op while
   * SERENITY_DYNAMIC_ALLOCATION is off). */
  meteredWrites?: MeteredWriteGuardFactory;
  /** `SERENITY_SYNC_SETTLE_BUDGET_MS` (config.syncSettleBudgetMs); default 10 s. */
  syncSettleBudgetMs?: number;
  /** Tuning of the provisioning job (tests, benchmarks): its poll ladder, chain retries, env. */
  provisioning?: Pick<ProvisioningHopDeps, "nextPollDelayMs" | "chainRetryDelaysMs" | "env">;
  /**
   * Where generation reads its per-use settings (SERENITY_ASYNC_PROMPT_GEN, the generator
   * variables); default process.env. Tests pass their own object and flip it.
   */
  generationEnv?: FlagSource;
  /** How long operator settings are cached per process; default 60 s. */
  settingsCacheMs?: number;
  /**
   * What the allocation lock is built on; default the cross-process database lease. Only a test's
   * or a benchmark's composition passes another (docs/decisions/0039): no setting selects one.
   */
  allocationLockProvider?: LockProvider;
  /** How the pool view's background refresh spreads its reads (tests, benchmarks); default paced. */
  poolRefreshPacing?: Partial<PoolRefreshPacing>;
  /**
   * The operator's upstream bearer (SERENITY_UPSTREAM_TOKEN, config.upstreamToken): reads of a
   * parent's metering prefer it (spec/allocation.md §13); unset, they use the caller's bearer.
   */
  upstreamToken?: OperatorBearer;
}

/**
 * Composes the services from the bottom layer up: each is built after everything it uses, so
 * nothing is bound late. Job handlers register on the registry once the features they run exist.
 */
export function createServices(deps: ServiceDeps): Services {
  const { db, clock, events, logger } = deps;
  // Every publish is remembered per workspace: releases stand back while upstream's used lags it.
  const gateway = withPublishRecording(
    deps.gateway ?? createUnconfiguredGatewayClient({ events, logger, clock }),
    { db, clock, logger },
  );
  const allocationDeps: AllocationDeps = {
    db,
    clock,
    events,
    logger,
    upstream: gatewayAllocationUpstream(gateway),
    lock: createAllocationLock({ ...deps, provider: deps.allocationLockProvider }),
    operatorBearer: deps.upstreamToken,
  };
  // An org that gets a parent learns its metering at once (allocation reads it).
  const orgs = new OrgService({
    db,
    clock,
    parentMetering: parentMeteringPort(allocationDeps),
    // Every org-scoped access marks the org used: its background passes' pace (ADR 0042).
    activity: new OrgActivityMarks({ db, clock, logger }),
  });
  const brands = new BrandService({ db, clock, orgs });
  const credentials = new CredentialStore({
    db,
    clock,
    logger,
    key: deps.credentialKey ?? ephemeralCredentialKey(),
  });
  const registry = new JobRegistry();
  const jobs = new JobService({
    db,
    clock,
    logger,
    registry,
    queue: deps.jobQueue ?? createPgBossQueue({ pool: poolOf(db), logger }),
    credentials,
    orgs,
  });
  const poolHistory = new PoolHistory({ db: deps.db, clock: deps.clock, logger: deps.logger, orgs });
  const allocation = new AllocationService({ ...allocationDeps, orgs });
  const poolView = new PoolViewService({
    ...allocationDeps,
    orgs,
    history: poolHistory,
    poolRefreshPacing: deps.poolRefreshPacing,
  });
  const meteredWrites = deps.meteredWrites ?? allocation.meteredWrites;
  const catalogues = new CatalogueService({ gateway, clock, logger });
  // One per process: structural operations on a brand, from any process, run one at a time. On
  // the system clock, not the injected one: its waits are real contention between processes, and
  // a test's ManualClock would stall an unpumped waiter or expire a working holder (ADR 0015).
  const brandLease = createBrandLease({ db, clock: systemClock, events, logger });
  const settings = new OperatorSettings({ db, clock, cacheMs: deps.settingsCacheMs });
  const generationProducer = new GenerationProducer({
    db,
    clock,
    logger,
    credentials,
    queue: jobs.queue,
    gateway,
    readiness: new GenerationReadiness({ workers: jobs, settings, logger }),
    env: deps.generationEnv,
  });
  const producers = new AsyncProvisioning({ db, clock, logger, events, jobs });
  const markets = new MarketService({
    db,
    clock,
    logger,
    orgs,
    catalogue: catalogues,
    gateway,
    meteredWrites,
    brandLease,
    events,
    producers,
    generation: generationProducer,
  });
  const prompts = new PromptService({ db, clock, logger, orgs, markets, gateway, meteredWrites });
  // One language validator per process (eld's database is large), shared by every generator.
  const languageValidator = lazyLanguageValidator();
  const promptPreview = new PromptPreviewService({
    db,
    clock,
    events,
    logger,
    orgs,
    gateway,
    languageValidator,
    env: deps.generationEnv,
  });
  const brandLifecycle = new BrandLifecycleService({
    db,
    clock,
    logger,
    orgs,
    brands,
    markets,
    gateway,
    meteredWrites,
    brandLease,
    producers,
    generation: generationProducer,
    ...(deps.syncSettleBudgetMs ? { syncSettleBudgetMs: deps.syncSettleBudgetMs } : {}),
  });
  // Job handlers register here, so API and worker agree on the job types.
  const chainedWork = { db, gateway, markets, brandLease, generation: generationProducer };
  registry
    .registerHandler(provisionWorkspaceHandler({ db, gateway, events, brandLease, ...deps.provisioning }))
    .registerHandler(createMarketJobHandler(chainedWork))
    .registerHandler(activateBrandJobHandler(chainedWork))
    .registerHandler(activateMarketsJobHandler(chainedWork))
    .registerHandler(
      generationJobHandler({
        db,
        clock,
        events,
        gateway,
        meteredWrites,
        languageValidator,
        env: deps.generationEnv,
      }),
    );
  registry
    .registerHandler(deleteBrandJobHandler({ db, clock, logger, gateway, meteredWrites, brandLease }))
    .registerHandler(propagateIdentityJobHandler({ db, gateway, meteredWrites, brandLease, jobs }));
  const brandIdentity = new BrandIdentityService({ db, clock, logger, orgs, jobs });
  const jobListing = new JobListing({ db, clock, orgs, registry });
  return {
    orgs,
    brands,
    brandLifecycle,
    brandIdentity,
    jobs,
    catalogues,
    markets,
    prompts,
    promptPreview,
    allocation,
    poolView,
    poolHistory,
    jobListing,
    idempotency: new IdempotencyService({ db, logger: deps.logger, clock }),
    generation: { producer: generationProducer, jobs: new GenerationJobs(jobs), settings },
    brandLease,
  };
}

/** The pg pool behind a Drizzle handle (Drizzle keeps it as `$client`). */
function poolOf(db: Db): pg.Pool {
  return (db as Db & { $client: pg.Pool }).$client;
}
