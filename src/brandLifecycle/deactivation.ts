import type { BrandRow } from "../db/brands/brandRow.ts";
import { cancelProvisioning } from "../db/brands/cancelProvisioning.ts";
import { clearSubWorkspacePointer } from "../db/brands/clearSubWorkspacePointer.ts";
import { markBrandPending } from "../db/brands/markBrandPending.ts";
import type { DbExecutor } from "../db/database.ts";
import { deleteMarketsOfBrand } from "../db/markets/deleteMarketsOfBrand.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { DEACTIVATION_FLOOR } from "../domain/allocation.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import { upstreamFailure } from "../gateway/registryErrors.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "../markets/writeTarget.ts";
import type { Logger } from "../observability/logger.ts";
import type { WorkspaceLifecycle } from "../subWorkspaces/workspaceLifecycle.ts";

export interface DeactivationDeps {
  db: DbExecutor;
  clock: Clock;
  logger: Logger;
  lifecycle: WorkspaceLifecycle;
  meteredWrites: MeteredWriteGuardFactory;
}

/**
 * Deactivate, in the order of spec/provisioning.md §6:
 * 1. T6 first: a worker hop landing after this can no longer promote;
 * 2. take the brand out of `active` (status `pending`) BEFORE listing anything, and read the
 *    pointer from that write: a promote may have committed between the caller's read and the
 *    cancel. A market create in flight marks its market ready only while the brand is still
 *    `active` on that workspace (markMarketReady), so either its mark fails and it deletes its
 *    own project, or its project exists before our listing below and is deleted with the rest;
 * 3. with a pointer: delete every project of the sub-workspace (an already-gone one counts as
 *    done; any other failure fails the request, so a "successful" deactivate never leaves a live
 *    project behind), release the allocation down to the floor (best effort), drop the market rows
 *    of that workspace, clear the pointer guarded on the value we emptied;
 * 4. the brand is `pending` (written again: the answer carries the row as it ends).
 * Market rows of projects living elsewhere (markets made while the brand was flat, in the org's
 * parent) are left alone: deactivation does not touch the shared parent.
 */
export async function deactivateBrand(
  deps: DeactivationDeps,
  request: { bearer: string; requestId: string | undefined; brand: BrandRow; org: OrgWithMetering },
): Promise<BrandRow> {
  const { brand, org, bearer } = request;
  const log = deps.logger.child({ brandId: brand.id, requestId: request.requestId });

  const cancelled = await cancelProvisioning(deps.db, {
    brandId: brand.id,
    now: deps.clock.databaseTime?.(),
  });
  if (cancelled)
    log.info({ attemptId: cancelled.provisioningAttemptId }, "cancelled a pending provisioning attempt");

  const current = await markBrandPending(deps.db, { brandId: brand.id, now: deps.clock.databaseTime?.() });
  if (!current) throw new ServiceError("notFound");
  const pointer = current.subWorkspaceId;

  if (pointer !== null) {
    // Never empty the org's shared parent, whatever a misconfigured row says.
    if (pointer === org.parentWorkspaceId) throw new ServiceError("workspaceMisconfigured");
    // Built before the first upstream write: building it validates the allocation setup, so with
    // dynamic allocation on and no parent workspace the request fails loud (allocationMisconfigured)
    // before any project is deleted, not halfway through (spec/allocation.md §2).
    const guard = meteredWriteGuardFor(deps.meteredWrites, marketWriteTarget(pointer, org), {
      orgId: org.id,
      brandId: brand.id,
      operation: request,
    });
    let deleted: number;
    try {
      deleted = await deps.lifecycle.deleteAllProjects(bearer, pointer);
    } catch (error) {
      throw upstreamFailure(error, log, "deactivate.deleteProjects");
    }
    await guard.releaseSurplus(DEACTIVATION_FLOOR, "deactivate");
    await deleteMarketsOfBrand(deps.db, brand.id, { workspaceId: pointer });
    const cleared = await clearSubWorkspacePointer(deps.db, {
      brandId: brand.id,
      subWorkspaceId: pointer,
      now: deps.clock.databaseTime?.(),
    });
    log.info(
      { workspaceId: pointer, projectsDeleted: deleted, cleared: Boolean(cleared) },
      "deactivated a sub-workspace",
    );
  }

  const pending = await markBrandPending(deps.db, { brandId: brand.id, now: deps.clock.databaseTime?.() });
  if (!pending) throw new ServiceError("notFound");
  return pending;
}
