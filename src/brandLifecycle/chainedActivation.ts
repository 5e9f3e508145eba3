import type { JobContext } from "../jobs/handler.ts";
import {
  callerOf,
  type ChainedOutcome,
  type ChainedTarget,
  type ChainedWorkDeps,
  jobReservationKey,
  stillApplies,
  underBrandLease,
  undoMarkets,
} from "../markets/chainedMarketWork.ts";
import { generationForActivation } from "./activationGeneration.ts";
import { createActivationMarkets } from "./activationMarkets.ts";
import type { ActivationResult } from "./brandLifecycleRequests.ts";

/**
 * The work `activate-brand` and `activate-markets` chain after a provisioning hop's promote: the
 * markets an activate asked for, with the same re-checks as the chained market create
 * (markets/chainedMarketWork.ts) before and after its writes.
 */
export async function activateMarketsChained(
  deps: ChainedWorkDeps,
  ctx: Pick<JobContext, "credential" | "logger" | "job">,
  target: ChainedTarget,
  requested: { market: string; languageCode: string }[],
  generatePrompts?: boolean,
): Promise<ChainedOutcome<ActivationResult>> {
  return underBrandLease(deps, target, async () => {
    const context = await stillApplies(deps.db, target);
    if (!context) return { kind: "superseded" };
    const bearer = await ctx.credential();
    const { results, created } = await createActivationMarkets(
      deps.markets,
      { bearer, requestId: undefined, reservationKey: jobReservationKey(ctx.job) },
      context.brand,
      context.org,
      requested,
    );
    const after = await stillApplies(deps.db, target);
    if (!after) {
      await undoMarkets(deps, ctx.logger, bearer, context.brand.id, created);
      return { kind: "superseded" };
    }
    const markets = ctx.job.createdBy
      ? await generationForActivation(
          deps.generation,
          callerOf(ctx, bearer),
          after.brand,
          after.org,
          results,
          generatePrompts,
        )
      : results;
    return {
      kind: "done",
      value: { brandId: target.brandId, status: "active", markets },
      brand: after.brand,
    };
  });
}
