import type pg from "pg";

import { AllocationService } from "../allocation/allocationService.ts";
import { createAllocationLock } from "../allocation/createAllocationLock.ts";
import { gatewayAllocationUpstream } from "../allocation/gatewayAllocationUpstream.ts";
import { PoolHistory } from "../allocation/poolHistory.ts";
import { withPublishRecording } from "../allocation/publishRecorder.ts";
import { BrandService } from "../brands/brandService.ts";
import { CatalogueService } from "../catalogues/catalogueService.ts";
import { ephemeralCredentialKey } from "../credentials/credentialKey.ts";
import { CredentialStore } from "../credentials/credentialStore.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import { createUnconfiguredGatewayClient, type GatewayClient } from "../gateway/gatewayClient.ts";
import {
  activateBrandJobHandler,
  activateMarketsJobHandler,
  createMarketJobHandler,
} from "../jobs/handlers/chainedProvisioningJobs.ts";
import { provisionWorkspaceHandler } from "../jobs/handlers/provisionWorkspace.ts";
import { JobListing } from "../jobs/jobListing.ts";
import { JobService } from "../jobs/jobService.ts";
import { createPgBossQueue, type JobQueue } from "../jobs/queue.ts";
import { JobRegistry } from "../jobs/registry.ts";
import { MarketService } from "../markets/marketService.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { OrgService } from "../orgs/orgService.ts";
import { PromptService } from "../prompts/promptService.ts";
import { AsyncProvisioning } from "../provisioning/asyncProvisioning.ts";
import type { ProvisioningHopDeps } from "../provisioning/provisioningHop.ts";

/** The services every entry point (API, worker, CLI) calls. */
export interface Services {
  orgs: OrgService;
  brands: BrandService;
  /** Jobs: submit, poll, reauth; `jobs.registry` is where job handlers are registered. */
  jobs: JobService;
  /** The upstream catalogues (languages, AI models), cached per process. */
  catalogues: CatalogueService;
  /** Markets and their models; `markets.createForBrand` is the entry for provisioning. */
  markets: MarketService;
  prompts: PromptService;
  /** Just-in-time allocation: guards, releases, the ledger and the pool view (spec/allocation.md). */
  allocation: AllocationService;
  /** The org pool over time, recorded from every fresh pool read. */
  poolHistory: PoolHistory;
  /** An org's jobs as a list and one job's lineage as a timeline (the console's Jobs page). */
  jobListing: JobListing;
}

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  /** The credential sealing key (runtime: resolveCredentialKey(config)); tests get a per-process key. */
  credentialKey?: Buffer | Promise<Buffer>;
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
}

export function createServices(deps: ServiceDeps): Services {
  const orgs = new OrgService({ db: deps.db, clock: deps.clock });
  // Every publish is remembered per workspace: releases stand back while upstream's used lags it.
  const gateway = withPublishRecording(
    deps.gateway ??
      createUnconfiguredGatewayClient({ events: deps.events, logger: deps.logger, clock: deps.clock }),
    { db: deps.db, clock: deps.clock, logger: deps.logger },
  );
  const poolHistory = new PoolHistory({ db: deps.db, clock: deps.clock, logger: deps.logger, orgs });
  const allocation = new AllocationService({
    db: deps.db,
    clock: deps.clock,
    events: deps.events,
    logger: deps.logger,
    upstream: gatewayAllocationUpstream(gateway),
    lock: createAllocationLock(deps),
    orgs,
    history: poolHistory,
  });
  const meteredWrites = deps.meteredWrites ?? allocation.meteredWriteGuard;
  const catalogues = new CatalogueService({ gateway, clock: deps.clock, logger: deps.logger });
  // The producers submit through the job service, which is composed after the brand service.
  let jobService: JobService | undefined;
  const asyncProvisioning = new AsyncProvisioning({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    events: deps.events,
    submitJob: (input) => jobService!.submit(input),
  });
  const markets = new MarketService({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    orgs,
    catalogue: catalogues,
    gateway,
    meteredWrites,
    asyncProvisioning,
  });
  const brands = new BrandService({
    db: deps.db,
    clock: deps.clock,
    orgs,
    logger: deps.logger,
    gateway,
    markets,
    meteredWrites,
    asyncProvisioning,
    ...(deps.syncSettleBudgetMs ? { syncSettleBudgetMs: deps.syncSettleBudgetMs } : {}),
  });
  const credentials = new CredentialStore({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    key: deps.credentialKey ?? ephemeralCredentialKey(),
  });
  const jobRegistry = new JobRegistry();
  // Job handlers register here (jobRegistry.registerHandler(…)), so API and worker agree on types.
  const chainedWork = { db: deps.db, gateway, markets };
  jobRegistry
    .registerHandler(
      provisionWorkspaceHandler({ db: deps.db, gateway, events: deps.events, ...deps.provisioning }),
    )
    .registerHandler(createMarketJobHandler(chainedWork))
    .registerHandler(activateBrandJobHandler(chainedWork))
    .registerHandler(activateMarketsJobHandler(chainedWork));
  const jobs = (jobService = new JobService({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    registry: jobRegistry,
    queue: deps.jobQueue ?? createPgBossQueue({ pool: poolOf(deps.db), logger: deps.logger }),
    credentials,
    orgs,
    brands,
  }));
  const prompts = new PromptService({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    orgs,
    markets,
    gateway,
    meteredWrites,
  });
  const jobListing = new JobListing({ db: deps.db, clock: deps.clock, orgs, registry: jobRegistry });
  return { orgs, brands, jobs, catalogues, markets, prompts, allocation, poolHistory, jobListing };
}

/** The pg pool behind a Drizzle handle (Drizzle keeps it as `$client`). */
function poolOf(db: Db): pg.Pool {
  return (db as Db & { $client: pg.Pool }).$client;
}
