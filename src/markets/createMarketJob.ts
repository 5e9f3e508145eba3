import { z } from "zod";

import { noteMarketsNotCreated } from "../db/brands/noteMarketsNotCreated.ts";
import { defineJobHandler, type JobContext } from "../jobs/handler.ts";
import { isUpstreamBusy } from "../jobs/isUpstreamBusy.ts";
import type { JobError } from "../jobs/jobError.ts";
import { supersededResult } from "../subWorkspaces/hopResult.ts";
import { asJobFailure } from "../subWorkspaces/provisioningJobErrors.ts";
import { CREATE_MARKET_JOB } from "../subWorkspaces/provisioningJobTypes.ts";
import { type ChainedWorkDeps, createMarketChained } from "./chainedMarketWork.ts";
import { brandCreatedResult, marketCreatedResult } from "./marketJobResults.ts";

/**
 * The jobs a provisioning hop chains after its promote (spec/provisioning.md §6). Each stores as
 * its `result` the `{status, body}` the synchronous endpoint would have answered, or "superseded"
 * when it no longer applies (subWorkspaces/hopResult.ts). Failures carry the registry code the endpoint would
 * have answered with. Transient ones (a busy brand, an upstream 5xx / timeout / lost connection)
 * are retried with a bounded backoff: a market create is safe to run again —
 * its reservation is keyed by the job's lineage and its project create is create-or-adopt — so a
 * blip upstream no longer leaves a ready brand without the market it asked for.
 */

export const chainedTarget = { brandId: z.uuid(), workspaceId: z.string().nullable() };
const marketInput = z.object({
  market: z.string(),
  languageCode: z.string(),
  primaryUrl: z.string().nullable().optional(),
  modelIds: z.array(z.string()).optional(),
});

const createMarketMetadata = z.object({
  ...chainedTarget,
  input: marketInput,
  /** createBrand answers with the Brand (201), createMarket with `{market}` (201). */
  respondWith: z.enum(["brand", "market"]),
  /** The request asked for generated prompts (spec/generation.md §2): run the producer after the create. */
  generatePrompts: z.boolean().optional(),
});

export const CHAINED_JOB_LIMITS = {
  timeoutMs: 5 * 60_000,
  leaseTtlMs: 6 * 60_000,
  maxAttempts: 6,
  retryDelayMs: chainedRetryDelayMs,
} as const;

/** 2 s, 4 s, 8 s, 16 s, 30 s: about a minute of upstream trouble ridden out, then FAILED. */
export function chainedRetryDelayMs(attempt: number): number {
  return Math.min(30_000, 2_000 * 2 ** Math.max(0, attempt - 1));
}

export function createMarketJobHandler(deps: ChainedWorkDeps) {
  return defineJobHandler({
    type: CREATE_MARKET_JOB,
    publicType: "createSemrushMarket",
    family: "provisioning",
    ...CHAINED_JOB_LIMITS,
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
        // A market asked for on its own (respondWith "market") answers through its job alone.
        throw await failChained(deps, ctx, { brandId, workspaceId }, error, respondWith === "brand");
      }
    },
  });
}

/**
 * The failure a chained job throws. When it ends the job (not retryable, or the last attempt) and
 * the markets were part of the brand's own request, the brand's provisioning state says so.
 */
export async function failChained(
  deps: ChainedWorkDeps,
  ctx: JobContext,
  target: { brandId: string; workspaceId: string | null },
  error: unknown,
  brandAsked: boolean,
): Promise<JobError> {
  const failure = asJobFailure(error);
  // The upstream's request limit never ends a job (the runner delays it and refunds the attempt),
  // so it never makes this delivery the last one either.
  const final =
    !isUpstreamBusy(error) && (!failure.retryable || ctx.attempt >= CHAINED_JOB_LIMITS.maxAttempts);
  if (brandAsked && final && target.workspaceId !== null) {
    await noteMarketsNotCreated(deps.db, {
      brandId: target.brandId,
      workspaceId: target.workspaceId,
      now: ctx.clock.databaseTime?.(),
    }).catch((noteError: unknown) =>
      ctx.logger.warn({ err: noteError }, "could not note the missing markets on the brand"),
    );
  }
  return failure;
}
