import type { BrandRow } from "../db/brands/brandRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { ServiceError } from "../domain/errors.ts";
import type {
  MeteredWriteContext,
  MeteredWriteGuard,
  MeteredWriteGuardFactory,
} from "../domain/meteredWrites.ts";
import type { OperationContext } from "../domain/operationContext.ts";

/**
 * Where a brand's market writes go (spec/api.md §3, SPEC §2 "flat mode"): the workspace, and the
 * workspace fields of the guard's context (`flat` when it is the org's parent, the pool itself;
 * the parent's metering as loaded with the org, spec/allocation.md §13).
 */
export interface WriteTarget extends Pick<
  MeteredWriteContext,
  "flat" | "subWorkspaceId" | "parentWorkspaceId" | "metering"
> {
  workspaceId: string;
}

/** What a write target needs of the org: its pool and that pool's metering. */
type TargetOrg = Pick<OrgWithMetering, "parentWorkspaceId" | "metering">;

export const NO_PARENT_WORKSPACE_MESSAGE = "Organization has no Semrush workspace configured";

/**
 * A brand with a sub-workspace writes into it; a brand with neither a sub-workspace nor any
 * provisioning history is flat and writes into the org's parent; a flat-looking brand whose
 * provisioning is pending or failed must not fall back to the shared parent by mistake.
 */
export function resolveWriteTarget(
  brand: Pick<BrandRow, "subWorkspaceId" | "provisioningStatus">,
  org: TargetOrg,
): WriteTarget {
  const parentWorkspaceId = org.parentWorkspaceId;
  const metering = org.metering.state;
  if (brand.subWorkspaceId !== null) {
    if (brand.subWorkspaceId === parentWorkspaceId) throw new ServiceError("workspaceMisconfigured");
    return {
      workspaceId: brand.subWorkspaceId,
      flat: false,
      subWorkspaceId: brand.subWorkspaceId,
      parentWorkspaceId,
      metering,
    };
  }
  if (brand.provisioningStatus !== null) throw new ServiceError("semrushProvisioningIncomplete");
  if (!parentWorkspaceId) throw new ServiceError("invalidRequest", { message: NO_PARENT_WORKSPACE_MESSAGE });
  return { workspaceId: parentWorkspaceId, flat: true, subWorkspaceId: null, parentWorkspaceId, metering };
}

/**
 * The target of an operation on an existing market: the workspace its project was created in
 * (recorded on the market row), flat when that is the org's parent. A brand activated after its
 * flat markets were made keeps writing those markets where their projects live.
 */
export function marketWriteTarget(workspaceId: string, org: TargetOrg): WriteTarget {
  const flat = workspaceId === org.parentWorkspaceId;
  return {
    workspaceId,
    flat,
    subWorkspaceId: flat ? null : workspaceId,
    parentWorkspaceId: org.parentWorkspaceId,
    metering: org.metering.state,
  };
}

/**
 * The metered-write guard of a brand's writes into `target`, built once per request and workspace
 * (building it runs the allocation setup check, so a misconfiguration fails before any write).
 */
export function meteredWriteGuardFor(
  meteredWrites: MeteredWriteGuardFactory,
  target: WriteTarget,
  who: { orgId: string; brandId: string; operation: Pick<OperationContext, "bearer" | "requestId"> },
): MeteredWriteGuard {
  return meteredWrites({
    orgId: who.orgId,
    brandId: who.brandId,
    subWorkspaceId: target.subWorkspaceId,
    parentWorkspaceId: target.parentWorkspaceId,
    flat: target.flat,
    metering: target.metering,
    bearer: who.operation.bearer,
    // An operation without a request (a job) has none: the guard's context says so with null.
    requestId: who.operation.requestId ?? null,
  });
}
