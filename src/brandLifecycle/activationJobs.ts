import { z } from "zod";

import { defineJobHandler } from "../jobs/handler.ts";
import type { ChainedWorkDeps } from "../markets/chainedMarketWork.ts";
import { CHAINED_JOB_LIMITS, chainedTarget, failChained } from "../markets/createMarketJob.ts";
import { supersededResult } from "../subWorkspaces/hopResult.ts";
import { ACTIVATE_BRAND_JOB, ACTIVATE_MARKETS_JOB } from "../subWorkspaces/provisioningJobTypes.ts";
import { activatedResult } from "./activationView.ts";
import { activateMarketsChained } from "./chainedActivation.ts";

/**
 * The activation jobs a provisioning hop chains after its promote (spec/provisioning.md §6), with
 * the limits, retries and failure handling of the chained market create (markets/createMarketJob.ts).
 */

const activateMetadata = z.object({
  ...chainedTarget,
  markets: z.array(z.object({ market: z.string(), languageCode: z.string() })),
  generatePrompts: z.boolean().optional(),
});

function activateHandler(type: string, publicType: string, deps: ChainedWorkDeps) {
  return defineJobHandler({
    type,
    publicType,
    family: "provisioning",
    ...CHAINED_JOB_LIMITS,
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
        throw await failChained(deps, ctx, { brandId, workspaceId }, error, true);
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
