import { z } from "zod";

import { defineJobHandler } from "../jobs/handler.ts";
import { activateMarketsChained, type ChainedWorkDeps, createMarketChained } from "./chainedWork.ts";
import { activatedResult, brandCreatedResult, marketCreatedResult, supersededResult } from "./jobResults.ts";
import { asJobFailure } from "./provisioningJobErrors.ts";
import { ACTIVATE_BRAND_JOB, ACTIVATE_MARKETS_JOB, CREATE_MARKET_JOB } from "./provisioningJobTypes.ts";

/**
 * The jobs a provisioning hop chains after its promote (spec/provisioning.md §6). Each stores as
 * its `result` the `{status, body}` the synchronous endpoint would have answered, or "superseded"
 * when it no longer applies (jobResults.ts). Failures carry the registry code the endpoint would
 * have answered with; they are not retried (a market create is not idempotent upstream; the caller
 * retries the request).
 */

const target = { brandId: z.uuid(), workspaceId: z.string().nullable() };
const marketInput = z.object({
  market: z.string(),
  languageCode: z.string(),
  primaryUrl: z.string().nullable().optional(),
  modelIds: z.array(z.string()).optional(),
});

const createMarketMetadata = z.object({
  ...target,
  input: marketInput,
  /** createBrand answers with the Brand (201), createMarket with `{market}` (201). */
  respondWith: z.enum(["brand", "market"]),
  /** The request asked for generated prompts (spec/generation.md §2): run the producer after the create. */
  generatePrompts: z.boolean().optional(),
});

const activateMetadata = z.object({
  ...target,
  markets: z.array(z.object({ market: z.string(), languageCode: z.string() })),
  generatePrompts: z.boolean().optional(),
});

const LIMITS = { timeoutMs: 5 * 60_000, leaseTtlMs: 6 * 60_000, maxAttempts: 3 } as const;

export function createMarketJobHandler(deps: ChainedWorkDeps) {
  return defineJobHandler({
    type: CREATE_MARKET_JOB,
    publicType: "createSemrushMarket",
    family: "provisioning",
    ...LIMITS,
    metadataSchema: createMarketMetadata,
    async handle(ctx) {
      const { brandId, workspaceId, input, respondWith, generatePrompts } = ctx.metadata;
      try {
        const outcome = await createMarketChained(
          deps,
          ctx,
          { brandId, workspaceId },
          input,
          generatePrompts,
        );
        if (outcome.kind === "superseded") return supersededResult(brandId);
        return respondWith === "brand"
          ? brandCreatedResult(outcome.brand, outcome.promptGeneration)
          : marketCreatedResult(outcome.value, outcome.promptGeneration);
      } catch (error) {
        throw asJobFailure(error);
      }
    },
  });
}

function activateHandler(type: string, publicType: string, deps: ChainedWorkDeps) {
  return defineJobHandler({
    type,
    publicType,
    family: "provisioning",
    ...LIMITS,
    metadataSchema: activateMetadata,
    async handle(ctx) {
      const { brandId, workspaceId, markets, generatePrompts } = ctx.metadata;
      try {
        const outcome = await activateMarketsChained(
          deps,
          ctx,
          { brandId, workspaceId },
          markets,
          generatePrompts,
        );
        if (outcome.kind === "superseded") return supersededResult(brandId);
        return activatedResult(outcome.value);
      } catch (error) {
        throw asJobFailure(error);
      }
    },
  });
}

/** After a fresh workspace: create the requested markets (the promote already made the brand active). */
export function activateBrandJobHandler(deps: ChainedWorkDeps) {
  return activateHandler(ACTIVATE_BRAND_JOB, "activateBrand", deps);
}

/** An active brand that had its workspace: create the requested markets. */
export function activateMarketsJobHandler(deps: ChainedWorkDeps) {
  return activateHandler(ACTIVATE_MARKETS_JOB, "activateMarkets", deps);
}
