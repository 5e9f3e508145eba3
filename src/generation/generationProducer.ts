import { asyncPromptGenerationEnabled, type FlagSource } from "../config/flags.ts";
import type { CredentialStore } from "../credentials/credentialStore.ts";
import type { Db } from "../db/database.ts";
import { findMarket } from "../db/markets/findMarket.ts";
import type { Clock } from "../domain/clock.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { NEEDS_REAUTH } from "../jobs/jobError.ts";
import { submitKeyedJob } from "../jobs/jobRecords.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { ProduceGeneration, PromptGenerationHandle } from "../markets/marketGeneration.ts";
import type { Logger } from "../observability/logger.ts";
import { catalogueDomainOf, fetchMarketSeeds } from "./fetchMarketSeeds.ts";
import { generationJobId } from "./generationJobId.ts";
import { DEFAULT_PROMPT_COUNT, type GenerationJobMetadataInput } from "./generationJobMetadata.ts";
import { GENERATE_MARKET_PROMPTS_JOB } from "./generationJobType.ts";
import { countGeneration } from "./generationRate.ts";
import type { GenerationReadiness } from "./generationReadiness.ts";
import { baseUrlFor } from "./toGenerationRequest.ts";

/** An IN_PROGRESS generation job this old is stale: recycled rather than reused (spec §2 step 3). */
export const STALE_GENERATION_MS = 60 * 60_000;

export interface GenerationProducerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  credentials: Pick<CredentialStore, "seal" | "invalidate">;
  queue: Pick<JobQueue, "enqueue">;
  gateway: Pick<GatewayClient, "projects">;
  readiness: Pick<GenerationReadiness, "check">;
  /** Where SERENITY_ASYNC_PROMPT_GEN is read, per use; default process.env. */
  env?: FlagSource;
}

export type SkipReason =
  | "flag-off"
  | "not-requested"
  | "consumer-not-ready"
  | "no-brand"
  | "no-market"
  | "no-seeds"
  | "seeds-unavailable"
  | "id-taken"
  | "enqueue-failed";

type Decision =
  | { kind: "created" | "recycled" | "replaced"; jobId: string }
  | { kind: "reused"; jobId: string }
  | { kind: "skip"; reason: SkipReason };

/**
 * The one producer of generation jobs (spec/generation.md §2), shared by create brand, create
 * market and activate — their synchronous paths and the provisioning jobs that chain them. It
 * runs after the market exists and never fails it: every problem is logged and answered as "no
 * handle". Gate 1 (the flag and `generatePrompts`) is checked first; callers show
 * `promptGeneration` only when a handle came back, so with the flag off responses are unchanged.
 */
export class GenerationProducer {
  constructor(private readonly deps: GenerationProducerDeps) {}

  async produce(request: ProduceGeneration): Promise<PromptGenerationHandle | undefined> {
    const { brand, market, caller } = request;
    const log = this.deps.logger.child({
      requestId: caller.requestId,
      orgId: brand.orgId,
      brandId: brand.id,
      geoTargetId: market.geoTargetId,
      languageCode: market.languageCode,
    });
    let decision: Decision;
    try {
      decision = await this.#decide(request, log);
    } catch (error) {
      log.error({ err: error }, "could not start prompt generation; the market is kept without it");
      decision = { kind: "skip", reason: "enqueue-failed" };
    }
    if (decision.kind === "skip") {
      if (decision.reason !== "flag-off" && decision.reason !== "not-requested")
        log.info({ reason: decision.reason }, "prompt generation skipped");
      return undefined;
    }
    log.info({ jobId: decision.jobId, outcome: decision.kind }, "prompt generation job produced");
    if (decision.kind !== "reused") {
      // A job counts against the org's generation rate with its previews; it is not refused by it.
      try {
        await countGeneration(this.deps.db, request.brand.orgId, this.deps.env ?? process.env);
      } catch (error) {
        log.warn({ err: error }, "could not count a generation job against the org's rate");
      }
    }
    return { jobId: decision.jobId, status: "provisioning", reused: decision.kind === "reused" };
  }

  async #decide(request: ProduceGeneration, log: Logger): Promise<Decision> {
    const { brand, org, market, caller } = request;
    if (request.generatePrompts !== true) return { kind: "skip", reason: "not-requested" };
    if (!asyncPromptGenerationEnabled(this.deps.env)) return { kind: "skip", reason: "flag-off" };
    const readiness = await this.deps.readiness.check();
    if (!readiness.ready) {
      log.info({ detail: readiness.detail }, "generation consumer not ready");
      return { kind: "skip", reason: readiness.reason };
    }
    if (brand.name.trim() === "") return { kind: "skip", reason: "no-brand" };
    const languageCode = market.languageCode.toLowerCase();
    const row = await findMarket(this.deps.db, {
      brandId: brand.id,
      geoTargetId: market.geoTargetId,
      languageCode,
    });
    if (!row) return { kind: "skip", reason: "no-market" };
    const domain = catalogueDomainOf(brand.domain, brand.primaryUrl);
    if (!domain) return { kind: "skip", reason: "no-seeds" };

    let seeds;
    try {
      seeds = await fetchMarketSeeds(this.deps, {
        bearer: caller.bearer,
        workspaceId: row.workspaceId,
        domain,
        primaryUrl: brand.primaryUrl,
        country: market.country,
      });
    } catch (error) {
      log.warn({ err: error }, "could not read the brand-topics catalogue");
      return { kind: "skip", reason: "seeds-unavailable" };
    }
    if (seeds.length === 0) return { kind: "skip", reason: "no-seeds" };

    const metadata: GenerationJobMetadataInput = {
      brandId: brand.id,
      orgId: org.id,
      workspaceId: row.workspaceId,
      geoTargetId: market.geoTargetId,
      languageCode,
      market: market.country.toUpperCase(),
      baseUrl: baseUrlFor(brand.primaryUrl, domain),
      brand: brand.name.trim(),
      aliases: brand.aliases,
      count: DEFAULT_PROMPT_COUNT,
      seeds,
      callerId: caller.sub,
    };
    return this.#enqueue(generationJobId(brand.id, market.geoTargetId, languageCode), request, metadata);
  }

  /**
   * Step 3–4, atomically (`submitKeyedJob` of jobs/jobRecords.ts): under a transaction-scoped lock on the job id, reuse a young
   * IN_PROGRESS job or one waiting for re-authentication, else seal the caller's credential and
   * create the record, or re-arm a stale or terminal one in place — and enqueue, all in one
   * transaction (two racing producers create exactly one job).
   */
  async #enqueue(
    jobId: string,
    request: ProduceGeneration,
    metadata: GenerationJobMetadataInput,
  ): Promise<Decision> {
    const { caller, brand } = request;
    const outcome = await submitKeyedJob(
      this.deps,
      {
        id: jobId,
        type: GENERATE_MARKET_PROMPTS_JOB,
        orgId: brand.orgId,
        brandId: brand.id,
        metadata: { ...metadata },
        owner: caller,
      },
      (existing, now) => {
        if (existing.type !== GENERATE_MARKET_PROMPTS_JOB || existing.brandId !== brand.id) return "skip";
        const young = now.getTime() - existing.updatedAt.getTime() < STALE_GENERATION_MS;
        if (existing.status === "IN_PROGRESS" && young) return "reuse";
        if (existing.status === "FAILED" && existing.error?.code === NEEDS_REAUTH) return "reuse";
        return "rearm";
      },
    );
    return outcome === "skipped" ? { kind: "skip", reason: "id-taken" } : { kind: outcome, jobId };
  }
}
