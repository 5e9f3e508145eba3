import type { BrandRow } from "../db/brands/brandRow.ts";
import type { MarketRow } from "../db/markets/marketRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { projectBrandNames } from "../domain/brandIdentity.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "../markets/writeTarget.ts";

export interface MarketIdentitySyncDeps {
  gateway: Pick<GatewayClient, "projects">;
  meteredWrites: MeteredWriteGuardFactory;
}

export interface MarketIdentityOutcome {
  /** Whether anything was written upstream (then the project was published). */
  changed: boolean;
}

/**
 * Makes one market's project carry the brand's identity, by difference: read what the project
 * has, write only what differs, publish once when anything did (the writes land in the draft
 * layer), through the allocation guard like any publish. Running it again changes nothing, which
 * is what makes the propagation crash-safe: a redelivery after a crash converges, never duplicates.
 */
export async function syncMarketIdentity(
  deps: MarketIdentitySyncDeps,
  bearer: string,
  org: OrgWithMetering,
  brand: BrandRow,
  market: MarketRow,
): Promise<MarketIdentityOutcome> {
  const projectId = market.projectId;
  if (!projectId) return { changed: false };
  const ws = market.workspaceId;
  const projects = deps.gateway.projects;
  const project = await projects.getProject(bearer, ws, projectId);
  const names = projectBrandNames(brand);
  let changed = false;
  if (
    project.brandNameDisplay !== brand.name ||
    JSON.stringify(project.brandNames ?? []) !== JSON.stringify(names)
  ) {
    await projects.patchProject(bearer, ws, projectId, { brandNameDisplay: brand.name, brandNames: names });
    changed = true;
  }
  if (changed) {
    const guard = meteredWriteGuardFor(deps.meteredWrites, marketWriteTarget(ws, org), {
      orgId: org.id,
      brandId: brand.id,
      operation: { bearer, requestId: undefined },
    });
    await guard.singleWrite("publish", {}, () => projects.publishProject(bearer, ws, projectId));
  }
  return { changed };
}
