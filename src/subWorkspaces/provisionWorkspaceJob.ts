import { defineJobHandler } from "../jobs/handler.ts";
import { withJobBrandLease } from "./brandLeaseForJobs.ts";
import { hopResult } from "./hopResult.ts";
import { type ProvisioningHopDeps, runProvisioningHop } from "./provisioningHop.ts";
import { PROVISIONING_JOB_ERROR_MESSAGES } from "./provisioningJobErrors.ts";
import {
  PROVISION_WORKSPACE_JOB,
  PROVISION_WORKSPACE_PUBLIC,
  type ProvisionWorkspaceMetadata,
  provisionWorkspaceMetadataSchema,
} from "./provisioningJobTypes.ts";

/**
 * `provision-workspace` (public `provisionWorkspace`): one hop of an asynchronous sub-workspace
 * provisioning attempt (spec/provisioning.md §5; the work is in provisioningHop.ts).
 *
 * Timeouts nest as the runner contract asks: a hop makes at most one create-or-adopt (a family
 * read, a project read per same-title workspace, one create, three recovery reads) and one status
 * read, each at most 15 s × 3 tries in the client — 4 minutes bounds it; the lease outlives that.
 * Attempts: redeliveries after crashes; a hop itself never asks for a retry (it requeues).
 */
export function provisionWorkspaceHandler(deps: ProvisioningHopDeps) {
  return defineJobHandler<ProvisionWorkspaceMetadata, Record<string, unknown>>({
    type: PROVISION_WORKSPACE_JOB,
    publicType: PROVISION_WORKSPACE_PUBLIC,
    family: "provisioning",
    timeoutMs: 4 * 60_000,
    leaseTtlMs: 5 * 60_000,
    maxAttempts: 5,
    errorMessages: PROVISIONING_JOB_ERROR_MESSAGES,
    metadataSchema: provisionWorkspaceMetadataSchema,
    // A hop creates, adopts and promotes the brand's workspace: structural, under the brand's lease.
    handle: async (ctx) =>
      hopResult(
        ctx.metadata.brandId,
        await withJobBrandLease(deps.brandLease, ctx.metadata.brandId, () => runProvisioningHop(deps, ctx)),
      ),
  });
}
