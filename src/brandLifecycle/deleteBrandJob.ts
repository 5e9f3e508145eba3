import { z } from "zod";

import { findBrandById } from "../db/brands/findBrandById.ts";
import { markBrandDeleted } from "../db/brands/markBrandDeleted.ts";
import type { Db } from "../db/database.ts";
import { deleteMarketsOfBrand } from "../db/markets/deleteMarketsOfBrand.ts";
import { listMarketsOfBrand } from "../db/markets/listMarketsOfBrand.ts";
import { findOrgById } from "../db/orgs/findOrgById.ts";
import type { Clock } from "../domain/clock.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { defineJobHandler } from "../jobs/handler.ts";
import { type BrandLease, JOB_BRAND_LEASE_WAIT_MS } from "../locks/brandLease.ts";
import type { Logger } from "../observability/logger.ts";
import { asJobFailure } from "../subWorkspaces/provisioningJobErrors.ts";
import { WorkspaceLifecycle } from "../subWorkspaces/workspaceLifecycle.ts";
import { DELETE_BRAND_JOB, DELETE_BRAND_PUBLIC } from "./brandIdentityJobs.ts";
import { deactivateBrand } from "./deactivation.ts";

export interface DeleteBrandJobDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  gateway: GatewayClient;
  meteredWrites: MeteredWriteGuardFactory;
  brandLease: BrandLease;
}

const deleteBrandMetadata = z.object({
  brandId: z.uuid(),
  /** Checkpointed before the deactivation clears the pointer, so a redelivery still knows it. */
  retiredSubWorkspaceId: z.string().nullable().optional(),
});

/**
 * `DELETE /orgs/:orgId/brands/:brandId` (spec/api.md §5): the brand's deactivation (provisioning
 * cancelled, every project of its sub-workspace deleted, the allocation released to the floor; the
 * emptied shell stays upstream, as live practice requires), then `deleted`. Under the brand's
 * lease, like every structural operation. Crash-safe: the sub-workspace id is checkpointed first;
 * a redelivery runs the deactivation again (deleting projects already gone counts as done) and
 * then the guarded mark; a brand found deleted already completes the job.
 */
export function deleteBrandJobHandler(deps: DeleteBrandJobDeps) {
  return defineJobHandler({
    type: DELETE_BRAND_JOB,
    publicType: DELETE_BRAND_PUBLIC,
    timeoutMs: 5 * 60_000,
    leaseTtlMs: 6 * 60_000,
    maxAttempts: 6,
    retryDelayMs: (attempt) => Math.min(30_000, 2_000 * 2 ** Math.max(0, attempt - 1)),
    metadataSchema: deleteBrandMetadata,
    async handle(ctx) {
      const { brandId } = ctx.metadata;
      try {
        return await deps.brandLease.withBrand(
          brandId,
          async () => {
            const brand = await findBrandById(deps.db, brandId);
            if (!brand || brand.status === "deleted") return { brandId, status: "deleted" };
            const org = await findOrgById(deps.db, brand.orgId);
            if (!org) return { brandId, status: "deleted" };
            if (ctx.metadata.retiredSubWorkspaceId === undefined)
              await ctx.saveCheckpoint({ retiredSubWorkspaceId: brand.subWorkspaceId });
            const retired = ctx.metadata.retiredSubWorkspaceId ?? brand.subWorkspaceId;
            const bearer = await ctx.credential();
            const lifecycle = new WorkspaceLifecycle({
              db: deps.db,
              clock: deps.clock,
              gateway: deps.gateway,
              logger: deps.logger,
            });
            await deactivateBrand({ ...deps, lifecycle }, { bearer, requestId: undefined, brand, org });
            // Markets made while the brand was flat live in the org's parent: deactivation leaves
            // the shared parent alone, but a deleted brand's own projects go with it.
            const leftover = await deleteMarketProjects(deps, bearer, brandId);
            await ctx.assertLeaseHeld();
            await markBrandDeleted(deps.db, {
              brandId,
              retiredSubWorkspaceId: retired ?? null,
              now: ctx.clock.databaseTime?.(),
            });
            ctx.logger.info({ retiredSubWorkspaceId: retired, leftover }, "brand deleted");
            return { brandId, status: "deleted" };
          },
          { waitMs: JOB_BRAND_LEASE_WAIT_MS },
        );
      } catch (error) {
        throw asJobFailure(error);
      }
    },
  });
}

/** Deletes the projects of the brand's remaining markets (an already-gone one counts), then their rows. */
async function deleteMarketProjects(
  deps: DeleteBrandJobDeps,
  bearer: string,
  brandId: string,
): Promise<number> {
  const rows = await listMarketsOfBrand(deps.db, brandId);
  for (const market of rows) {
    if (!market.projectId) continue;
    try {
      await deps.gateway.projects.deleteProject(bearer, market.workspaceId, market.projectId);
    } catch (error) {
      if (!isGatewayError(error, "gone")) throw error;
    }
  }
  await deleteMarketsOfBrand(deps.db, brandId);
  return rows.length;
}
