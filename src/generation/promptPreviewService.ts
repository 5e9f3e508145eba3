import { performance } from "node:perf_hooks";

import type { Principal } from "../auth/principal.ts";
import { loadBrandContext } from "../brands/brandContext.ts";
import type { FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { countryForGeoTargetId } from "../domain/geoTarget.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { resolveWriteTarget } from "../markets/writeTarget.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import { createPromptGenerator } from "./createPromptGenerator.ts";
import { type DescribedPrompt, describeGeneratedPrompts } from "./describeGeneratedPrompts.ts";
import { fetchMarketSeeds } from "./fetchMarketSeeds.ts";
import { DEFAULT_PROMPT_COUNT } from "./generationJobMetadata.ts";
import { countGeneration } from "./generationRate.ts";
import { GeneratorError } from "./generatorError.ts";
import { readGeneratorSettings } from "./generatorSettings.ts";
import { instrumentGenerator } from "./instrumentedGenerator.ts";
import { previewFailure } from "./previewFailure.ts";
import type { GeneratorName, PromptGenerator } from "./promptGenerator.ts";
import type { CatalogueSeed } from "./seeds.ts";
import { baseUrlFor, toGenerationRequest } from "./toGenerationRequest.ts";
import type { LanguageValidator } from "./validation/languageValidator.ts";
import {
  type GenerationRequest,
  type GenerationResponse,
  heldEmptySummary,
  type ShipSummary,
} from "./wire.ts";

/**
 * The prompt preview (spec/generation.md §8): the generation job's first phase, run synchronously
 * for one market and handed back for review — seeds from `brand-topics`, the generator, the
 * validation pipeline — and nothing else: no upstream write, no job, no allocation call, no
 * quota used. The market need not exist yet (ADR 0017): a user previews before spending the pool.
 */

export interface PromptPreviewInput {
  /** How many prompts to ask for (1..100); default 50, as a generation job. */
  count?: number | undefined;
  /** A generator for this preview; default SERENITY_PROMPT_GENERATOR, else builtin. */
  generator?: GeneratorName | undefined;
}

export interface PromptPreview {
  generator: GeneratorName;
  prompts: DescribedPrompt[];
  summary: ShipSummary;
}

export interface PromptPreviewDeps {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  orgs: OrgService;
  gateway: GatewayClient;
  /** The process's language validator (see `lazyLanguageValidator`). */
  languageValidator: () => Promise<LanguageValidator>;
  /** Where the generator settings are read, per call; default `process.env`. */
  env?: FlagSource;
}

/** As many as a generation job asks for, so a default preview shows what the job would write. */
export const DEFAULT_PREVIEW_COUNT = DEFAULT_PROMPT_COUNT;
/**
 * The largest `count` an org member may ask for: what a job asks for (issue 39, item 6). Up to the
 * schema's 100 is an admin's; so is choosing the generator (an operator decision: it picks whose
 * LLM spend a preview uses).
 */
export const MEMBER_PREVIEW_MAX_COUNT = DEFAULT_PROMPT_COUNT;
/** A generator's `reason` is shown to the caller: bounded, whatever a remote service sends. */
const MAX_REASON_LENGTH = 300;

export class PromptPreviewService {
  constructor(private readonly deps: PromptPreviewDeps) {}

  /** `POST …/markets/:geoTargetId/:languageCode/prompt-preview`. */
  async preview(
    principal: Principal,
    orgId: string,
    brandId: string,
    market: { geoTargetId: number; languageCode: string },
    input: PromptPreviewInput,
    ctx: { requestId: string | undefined },
  ): Promise<PromptPreview> {
    const { org, brand } = await loadBrandContext(this.deps, principal, orgId, brandId);
    refuseMemberCosts(principal, input);
    const country = countryForGeoTargetId(market.geoTargetId);
    if (!country) {
      throw new ServiceError("invalidRequest", { message: "geoTargetId names no country." });
    }
    const log = this.deps.logger.child({ requestId: ctx.requestId, orgId: org.id, brandId: brand.id });
    // Settings first: a misconfigured generator fails before any upstream read.
    const settings = this.#settings(input.generator, log);
    // The org's generation rate (previews and jobs together), counted before any upstream read.
    const rate = await countGeneration(this.deps.db, org.id, this.deps.env ?? process.env);
    if (rate.over) {
      log.info(
        { retryAfterSeconds: rate.retryAfterSeconds },
        "prompt preview refused: the org's generation rate",
      );
      throw new ServiceError("rateLimited", {
        message: "This org has used its generations for the hour; retry later.",
        details: { retryAfterSeconds: rate.retryAfterSeconds },
      });
    }
    const target = resolveWriteTarget(brand, org);
    const seeds = await fetchMarketSeeds(
      { gateway: this.deps.gateway, logger: log },
      {
        bearer: principal.bearer,
        workspaceId: target.workspaceId,
        domain: brand.domain,
        primaryUrl: brand.primaryUrl,
        country,
      },
    );
    const started = performance.now();
    const outcome = { generator: settings.generator, geoTargetId: market.geoTargetId, seeds: seeds.length };
    if (seeds.length === 0) {
      log.info({ ...outcome, verdict: "held", reason: "no-seeds" }, "prompt preview");
      return { generator: settings.generator, prompts: [], summary: heldEmptySummary("no-seeds") };
    }
    const request = this.#request(seeds, {
      brand,
      imsOrgId: org.externalId,
      country,
      languageCode: market.languageCode,
      count: input.count ?? DEFAULT_PREVIEW_COUNT,
      model: settings.model,
      log,
    });
    const generator = instrumentGenerator(
      createPromptGenerator(settings, {
        languageValidator: this.deps.languageValidator,
        clock: this.deps.clock,
      }),
      this.deps.events,
    );
    let response: GenerationResponse;
    try {
      response = await this.#generateWithin(generator, request, settings.timeoutMs);
    } catch (error) {
      const mapped = previewFailure(error);
      log.warn(
        { ...outcome, err: error, code: mapped instanceof ServiceError ? mapped.code : undefined },
        "prompt preview failed",
      );
      throw mapped;
    }
    const prompts = describeGeneratedPrompts(response.prompts, request);
    const summary = {
      ...response.ship_summary,
      reason: response.ship_summary.reason.slice(0, MAX_REASON_LENGTH),
    };
    log.info(
      {
        ...outcome,
        verdict: summary.verdict,
        prompts: prompts.length,
        durationMs: Math.round(performance.now() - started),
      },
      "prompt preview",
    );
    return { generator: settings.generator, prompts, summary };
  }

  #settings(override: GeneratorName | undefined, log: Logger) {
    try {
      return readGeneratorSettings(this.deps.env ?? process.env, override);
    } catch (error) {
      const mapped = previewFailure(error);
      log.warn({ err: error, generator: override }, "prompt preview: the generator is misconfigured");
      throw mapped;
    }
  }

  #request(
    seeds: CatalogueSeed[],
    input: {
      brand: {
        id: string;
        name: string;
        domain: string | null;
        primaryUrl: string | null;
        aliases: string[];
      };
      imsOrgId: string | null;
      country: string;
      languageCode: string;
      count: number;
      model: string | undefined;
      log: Logger;
    },
  ): GenerationRequest {
    const { brand } = input;
    return toGenerationRequest(
      {
        brandId: brand.id,
        languageCode: input.languageCode,
        market: input.country,
        baseUrl: baseUrlFor(brand.primaryUrl, brand.domain ?? ""),
        brand: brand.name,
        aliases: brand.aliases,
        count: input.count,
        seeds,
      },
      { imsOrgId: input.imsOrgId, model: input.model },
      (warning) => input.log.warn(warning, "unknown generation model; using the default"),
    );
  }

  /**
   * The generator call, bounded by the generator timeout on the injected clock even for a
   * generator that ignores its signal: past it, the call is aborted and the caller gets 504.
   */
  async #generateWithin(
    generator: PromptGenerator,
    request: GenerationRequest,
    timeoutMs: number,
  ): Promise<GenerationResponse> {
    const abort = new AbortController();
    const timer = new AbortController();
    const deadline = this.deps.clock.sleep(timeoutMs, timer.signal).then(
      () => {
        abort.abort();
        throw new GeneratorError("timeout", `The preview's generator did not answer within ${timeoutMs} ms.`);
      },
      () => new Promise<never>(() => {}), // cancelled: the call ended first
    );
    try {
      return await Promise.race([generator.generate(request, { signal: abort.signal }), deadline]);
    } finally {
      timer.abort();
    }
  }
}

/** A member may not choose the generator nor ask for more than a job does (issue 39, item 6). */
function refuseMemberCosts(principal: Principal, input: PromptPreviewInput): void {
  if (principal.isAdmin) return;
  if (input.generator !== undefined) {
    throw new ServiceError("forbidden", {
      message: "Choosing the generator is an operator's decision: only an admin may set generator.",
    });
  }
  if ((input.count ?? DEFAULT_PREVIEW_COUNT) > MEMBER_PREVIEW_MAX_COUNT) {
    const detail = `count must be at most ${MEMBER_PREVIEW_MAX_COUNT} (more is an admin's)`;
    throw new ServiceError("invalidRequest", {
      message: detail,
      bodyProblems: [{ pointer: "/count", code: "tooBig", detail }],
    });
  }
}
