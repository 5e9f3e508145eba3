import type { AllocationService } from "../allocation/allocationService.ts";
import type { TokenVerifier } from "../auth/tokenVerifier.ts";
import type { BrandIdentityService } from "../brandLifecycle/brandIdentityService.ts";
import type { BrandLifecycleService } from "../brandLifecycle/brandLifecycleService.ts";
import type { BrandService } from "../brands/brandService.ts";
import type { CatalogueService } from "../catalogues/catalogueService.ts";
import type { Clock } from "../domain/clock.ts";
import type { GenerationJobs } from "../generation/generationJobs.ts";
import type { GenerationProducer } from "../generation/generationProducer.ts";
import type { PromptPreviewService } from "../generation/promptPreviewService.ts";
import type { IdempotencyService } from "../idempotency/idempotencyService.ts";
import type { JobListing } from "../jobs/jobListing.ts";
import type { JobService } from "../jobs/jobService.ts";
import type { MarketService } from "../markets/marketService.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { PoolHistory } from "../poolView/poolHistory.ts";
import type { PoolViewService } from "../poolView/poolViewService.ts";
import type { PromptService } from "../prompts/promptService.ts";
import type { OperatorSettings } from "../settings/operatorSettings.ts";
import type { CorsOrigins } from "./cors.ts";
import type { ApiRateLimits } from "./rateLimits.ts";

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, boolean>;
}

/** The services the routes call (runtime/services.ts composes them). */
export interface ApiServices {
  orgs: OrgService;
  /** Brands as records: flat create, list, read. */
  brands: BrandService;
  /** A brand's lifecycle: create (flat or with its first market), activate, deactivate. */
  brandLifecycle: BrandLifecycleService;
  brandIdentity: BrandIdentityService;
  /** Jobs: submit, poll, reauth; `jobs.registry` is where job handlers are registered. */
  jobs: JobService;
  /** The upstream catalogues (languages, AI models), cached per process. */
  catalogues: CatalogueService;
  /** Markets and their models: create (sync or async), list, delete, models; `createForBrand` serves the brand lifecycle. */
  markets: MarketService;
  prompts: PromptService;
  /** Generated prompts for a market, previewed: no upstream write, no job, no allocation (generation §8). */
  promptPreview: PromptPreviewService;
  /** Just-in-time allocation: guards, releases and the ledger (spec/allocation.md). */
  allocation: AllocationService;
  /** What the org's pool holds: the pool view, its refresh and the sampler's read (src/poolView). */
  poolView: PoolViewService;
  /** The org pool over time, recorded from every fresh pool read. */
  poolHistory: PoolHistory;
  /** `Idempotency-Key` on creates: keys and their answers in PostgreSQL, across processes. */
  idempotency: IdempotencyService;
  /** An org's jobs as a list and one job's lineage as a timeline (the console's Jobs page). */
  jobListing: JobListing;
  /** Generated prompts: the shared producer, the poll and reauth of generation jobs, operator settings. */
  generation: { producer: GenerationProducer; jobs: GenerationJobs; settings: OperatorSettings };
}

/** Everything the HTTP layer needs: services to call, and the edge's own adapters. */
export interface AppDeps {
  logger: Logger;
  /** Starts each request's edge budget (its upstream calls' deadline); default the system clock. */
  clock?: Clock;
  events: EventBus;
  metrics: Metrics;
  verifier: TokenVerifier;
  services: ApiServices;
  readiness: () => Promise<ReadinessReport>;
  /**
   * Whether `/metrics` is served on the API's port (default yes, for zero setup); false when
   * SERENITY_METRICS_PORT serves it apart (src/runtime/probeServer.ts).
   */
  metricsOnApiPort?: boolean;
  /** Per-org and per-token request limits in a shared store; undefined = none (docs/decisions/0029). */
  rateLimits?: ApiRateLimits;
  /** Origins a browser UI may call the API from (SERENITY_CORS_ORIGINS); none by default. */
  corsOrigins?: CorsOrigins;
}
