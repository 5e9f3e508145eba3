import type { BrandRow } from "../db/brands/brandRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { ServiceError } from "../domain/errors.ts";
import { geoTargetIdFor } from "../domain/geoTarget.ts";
import { requireMarketTarget } from "../markets/marketRequestRules.ts";
import { NO_PARENT_WORKSPACE_MESSAGE } from "../markets/writeTarget.ts";
import type { CreateBrandInput, SemrushMarketInput } from "./brandLifecycleRequests.ts";

/**
 * The checks an endpoint that provisions runs before its first write, the same for its
 * synchronous and asynchronous paths, so a request that cannot succeed changes nothing.
 */

/** The org's parent workspace, which a new sub-workspace is created under. */
export function requireParent(org: OrgWithMetering): string {
  if (!org.parentWorkspaceId) {
    throw new ServiceError("invalidRequest", { message: NO_PARENT_WORKSPACE_MESSAGE });
  }
  return org.parentWorkspaceId;
}

/** Create brand with `semrushMarket`: the parent to provision under, once the request holds up. */
export function checkCreateWithMarket(
  org: OrgWithMetering,
  input: CreateBrandInput & { semrushMarket: SemrushMarketInput },
): string {
  const parentWorkspaceId = requireParent(org);
  if (geoTargetIdFor(input.semrushMarket.market) === undefined) {
    throw new ServiceError("invalidRequest", {
      message: "semrushMarket.market must be an ISO-3166 alpha-2 code",
    });
  }
  requireMarketTarget(input);
  return parentWorkspaceId;
}

/** Activate: the markets it asks for name real countries, and the brand can hold markets. */
export function checkActivation(
  org: OrgWithMetering,
  brand: BrandRow,
  requested: readonly { market: string; languageCode: string }[],
): void {
  for (const market of requested) {
    if (geoTargetIdFor(market.market) === undefined) {
      throw new ServiceError("invalidRequest", {
        message: "markets.market must be an ISO-3166 alpha-2 code",
      });
    }
  }
  if (requested.length > 0) requireMarketTarget(brand);
  if (brand.subWorkspaceId !== null && brand.subWorkspaceId === org.parentWorkspaceId) {
    throw new ServiceError("workspaceMisconfigured");
  }
}
