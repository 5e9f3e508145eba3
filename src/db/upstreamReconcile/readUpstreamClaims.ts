import { and, eq, inArray, isNotNull } from "drizzle-orm";

import type { UpstreamClaims } from "../../domain/upstreamOrphans.ts";
import type { DbExecutor } from "../database.ts";
import { allocationLedger, brands, jobs, markets } from "../schema.ts";

/** Reads an org's claims in four indexed queries; call it right before acting, not only per pass. */
export async function readUpstreamClaims(db: DbExecutor, orgId: string): Promise<UpstreamClaims> {
  const brandRows = await db
    .select({
      id: brands.id,
      name: brands.name,
      status: brands.status,
      subWorkspaceId: brands.subWorkspaceId,
      provisioningStatus: brands.provisioningStatus,
      candidateWorkspaceId: brands.provisioningCandidateWorkspaceId,
      retiredSubWorkspaceId: brands.retiredSubWorkspaceId,
    })
    .from(brands)
    .where(eq(brands.orgId, orgId));
  const brandIds = brandRows.map((brand) => brand.id);
  const marketRows =
    brandIds.length === 0
      ? []
      : await db
          .select({
            id: markets.id,
            updatedAt: markets.updatedAt,
            brandId: markets.brandId,
            workspaceId: markets.workspaceId,
            projectId: markets.projectId,
            status: markets.status,
          })
          .from(markets)
          .where(inArray(markets.brandId, brandIds));
  const liveJobs = await db
    .selectDistinct({ brandId: jobs.brandId })
    .from(jobs)
    .where(and(eq(jobs.orgId, orgId), eq(jobs.status, "IN_PROGRESS"), isNotNull(jobs.brandId)));
  const ledger = await db
    .selectDistinct({ subWorkspaceId: allocationLedger.subWorkspaceId })
    .from(allocationLedger)
    .where(eq(allocationLedger.orgId, orgId));
  return {
    brands: brandRows,
    markets: marketRows,
    brandsWithLiveJobs: liveJobs.map((row) => row.brandId!),
    ledgerWorkspaceIds: ledger.map((row) => row.subWorkspaceId),
  };
}

export type { UpstreamClaims };
