import { findBrandById } from "../db/brands/findBrandById.ts";
import { listBrands } from "../db/brands/listBrands.ts";
import { recordRejectedAliases } from "../db/brands/recordRejectedAliases.ts";
import { listReadyMarkets } from "../db/markets/listReadyMarkets.ts";
import { recordMarketIdentity } from "../db/markets/recordMarketIdentity.ts";
import { findOrgById } from "../db/orgs/findOrgById.ts";
import { isGatewayError } from "../gateway/errors.ts";
import { type MarketIdentitySyncDeps, syncMarketIdentity } from "../markets/marketIdentity.ts";
import { retagStep } from "../prompts/retagPromptTypes.ts";
import { type ReconcileContext, underBrandLease, type UpstreamReconcilerDeps } from "./upstreamReclaim.ts";

/**
 * The reconciler's drift repair (spec/api.md §5, docs/decisions/0041): every ready market of a
 * brand whose identity was ever set is compared with the identity — the project's brand names, its
 * benchmarks, CI competitors and the own brand's brand URLs — and re-synced where someone changed
 * Semrush by hand (or a market fell behind its brand's version). The same difference-only sync as
 * the propagation, so a market that matches costs three reads and writes nothing. Each market is
 * handled under its brand's lease, taken without waiting: a brand another process holds (a
 * propagation, a delete, a market create) is left for the next pass and counted `busy`.
 */
export async function repairIdentityDrift(
  deps: UpstreamReconcilerDeps & { identity: MarketIdentitySyncDeps },
  context: ReconcileContext,
): Promise<void> {
  const org = await findOrgById(deps.db, context.org.id);
  if (!org) return;
  const brands = (await listBrands(deps.db, org.id)).filter(
    (brand) => brand.status !== "deleted" && brand.identityVersion > 0,
  );
  for (const listed of brands) {
    for (const market of await listReadyMarkets(deps.db, listed.id)) {
      try {
        const repaired = await underBrandLease(deps, context, listed.id, market.id, async () => {
          // Read again under the lease: a PATCH or a delete may have landed since the listing.
          const brand = await findBrandById(deps.db, listed.id);
          if (!brand || brand.status === "deleted") return false;
          // A market behind the brand's version also gets its prompts re-tagged, as the propagation
          // would: recording the version below makes the propagation skip it.
          const behind = market.identityVersion < brand.identityVersion;
          const retag = behind
            ? retagStep({ projects: deps.identity.gateway.projects, known: deps }, market.id, brand)
            : undefined;
          const outcome = await syncMarketIdentity(deps.identity, context.bearer, org, brand, market, retag, {
            publishPending: behind,
          });
          await recordRejectedAliases(deps.db, {
            brandId: brand.id,
            identityVersion: brand.identityVersion,
            rejectedAliases: outcome.rejectedAliases,
          });
          await recordMarketIdentity(deps.db, {
            marketId: market.id,
            identityVersion: brand.identityVersion,
            now: deps.clock.databaseTime?.(),
          });
          if (outcome.changed) {
            context.log.info(
              { brandId: brand.id, marketId: market.id, drift: outcome.drift },
              "upstream reconciler: a market's identity drifted; re-synced",
            );
          }
          return outcome.changed;
        });
        if (repaired === true) {
          context.report.identityRepaired += 1;
          deps.events.emit("upstream.identityRepaired", { orgId: org.id, outcome: "repaired" });
        }
      } catch (error) {
        context.report.failed += 1;
        deps.events.emit("upstream.identityRepaired", { orgId: org.id, outcome: "failed" });
        context.log.warn(
          { ...(isGatewayError(error) ? error.toLog() : { err: error }), marketId: market.id },
          "upstream reconciler: could not re-sync a market's identity; the next pass tries again",
        );
      }
    }
  }
}
