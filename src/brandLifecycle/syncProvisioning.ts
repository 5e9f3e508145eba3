import type { BrandRow } from "../db/brands/brandRow.ts";
import { findBrandById } from "../db/brands/findBrandById.ts";
import { recordSyncSubWorkspace } from "../db/brands/recordSyncSubWorkspace.ts";
import type { DbExecutor } from "../db/database.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { OperationContext } from "../domain/operationContext.ts";
import type { ProvisioningFailureReason } from "../domain/provisioningAttempt.ts";
import { upstreamFailure } from "../gateway/registryErrors.ts";
import type { Logger } from "../observability/logger.ts";
import { applyConcurrencyGuard } from "../subWorkspaces/concurrencyGuard.ts";
import type { WorkspaceLifecycle } from "../subWorkspaces/workspaceLifecycle.ts";
import { type ActivationMarketCreator, createActivationMarkets } from "./activationMarkets.ts";
import type { ActivationResult } from "./brandLifecycleRequests.ts";
import { requireParent } from "./brandRequestRules.ts";

export interface SyncProvisioningDeps {
  db: DbExecutor;
  clock: Clock;
  logger: Logger;
  lifecycle: WorkspaceLifecycle;
}

export interface SyncProvisioningRequest {
  bearer: string;
  brand: BrandRow;
  parentWorkspaceId: string;
  settleBudgetMs: number;
  staleMs: number;
}

/**
 * The synchronous path of spec/provisioning.md §7: concurrency guard, create-or-adopt the
 * workspace titled with the brand's name, wait for it within the sync budget, then write the
 * pointer — guarded, so an asynchronous attempt that started meanwhile is never overwritten.
 * Returns the brand as written (active, pointing at its ready sub-workspace).
 *
 * Errors: 409 `semrushProvisioningInProgress` (a live attempt owns the brand, before or after the
 * wait), 409 `ambiguousWorkspace` (several adoptable workspaces, or the workspace became another
 * brand's pointer while we waited), 502 `subworkspaceCreationFailed`, 504
 * `subworkspaceCreationTimeout` (the workspace stays adoptable by title), and mapped upstream
 * failures. No database transaction is held across any upstream call.
 */
export async function provisionSubWorkspaceSync(
  deps: SyncProvisioningDeps,
  request: SyncProvisioningRequest,
): Promise<BrandRow> {
  const { brand, bearer } = request;
  const log = deps.logger.child({ brandId: brand.id });
  await applyConcurrencyGuard(deps, brand, request.staleMs);

  let workspaceId: string;
  try {
    const handle = await deps.lifecycle.createOrAdopt(
      bearer,
      request.parentWorkspaceId,
      brand.name,
      brand.id,
    );
    workspaceId = handle.workspaceId;
    await deps.lifecycle.settleSync(bearer, workspaceId, request.settleBudgetMs);
  } catch (error) {
    throw upstreamFailure(error, log, "provisionSubWorkspace");
  }

  const written = await recordSyncSubWorkspace(deps.db, {
    brandId: brand.id,
    subWorkspaceId: workspaceId,
    now: deps.clock.databaseTime?.(),
  });
  if (written.outcome === "recorded") return written.brand;
  if (written.outcome === "claimedByAnotherBrand") {
    log.warn({ workspaceId }, "the settled workspace became another brand's pointer meanwhile");
    throw new ServiceError("ambiguousWorkspace", { details: { workspaceId } });
  }
  // Lost: the brand changed under us. Say why, without touching what now owns it.
  const current = await findBrandById(deps.db, brand.id);
  if (!current || current.status === "deleted") throw new ServiceError("notFound");
  log.warn(
    { workspaceId, provisioningStatus: current.provisioningStatus, pointed: current.subWorkspaceId !== null },
    "sync pointer write lost to a concurrent provisioning",
  );
  throw new ServiceError("semrushProvisioningInProgress");
}

/** What the synchronous endpoints need beyond the path above. */
export interface SyncRequestDeps extends SyncProvisioningDeps {
  markets: ActivationMarketCreator;
  settleBudgetMs: number;
  staleMs: number;
}

/**
 * Activate, synchronously: a brand without a sub-workspace gets one (create-or-adopt, settle,
 * guarded pointer write) and becomes `active`; a brand with one just becomes `active`. Requested
 * markets are then created; an existing slice reports `exists` in the list, any other failure
 * fails the request (the markets created before it remain, and report `exists` on a retry).
 */
export async function activateSync(
  deps: SyncRequestDeps,
  request: {
    operation: OperationContext;
    org: OrgWithMetering;
    brand: BrandRow;
    requested: readonly { market: string; languageCode: string }[];
  },
): Promise<ActivationResult> {
  const { operation, org, brand, requested } = request;
  const active =
    brand.subWorkspaceId === null
      ? await provisionBrandSync(deps, operation, brand, requireParent(org))
      : await reactivate(deps, brand);
  const { results } =
    requested.length > 0
      ? await createActivationMarkets(deps.markets, operation, active, org, requested)
      : { results: [] };
  return { brandId: brand.id, status: "active", markets: results };
}

/** The fixed sentence a failed synchronous start leaves on the brand it inserted (T7). */
export function failureReasonOf(error: unknown): ProvisioningFailureReason {
  if (error instanceof ServiceError) {
    if (error.code === "subworkspaceCreationTimeout") return "didNotSettle";
    if (error.code === "subworkspaceCreationFailed") return "upstreamFailed";
  }
  return "couldNotStart";
}

/** The synchronous path above for a request: its bearer, the sync budget, the stale threshold. */
export function provisionBrandSync(
  deps: SyncRequestDeps,
  operation: OperationContext,
  brand: BrandRow,
  parentWorkspaceId: string,
): Promise<BrandRow> {
  return provisionSubWorkspaceSync(deps, {
    bearer: operation.bearer,
    brand,
    parentWorkspaceId,
    settleBudgetMs: deps.settleBudgetMs,
    staleMs: deps.staleMs,
  });
}

/**
 * A brand that already has its workspace just becomes `active` again: the guarded sync write
 * with the same pointer (it loses while an asynchronous attempt owns the brand → 409).
 */
async function reactivate(deps: SyncProvisioningDeps, brand: BrandRow): Promise<BrandRow> {
  const written = await recordSyncSubWorkspace(deps.db, {
    brandId: brand.id,
    subWorkspaceId: brand.subWorkspaceId!,
    now: deps.clock.databaseTime?.(),
  });
  if (written.outcome === "recorded") return written.brand;
  throw new ServiceError("semrushProvisioningInProgress");
}
