import { z } from "zod";

import { findBrandById } from "../db/brands/findBrandById.ts";
import { recordRejectedAliases } from "../db/brands/recordRejectedAliases.ts";
import type { Db } from "../db/database.ts";
import { listReadyMarkets } from "../db/markets/listReadyMarkets.ts";
import { recordMarketIdentity } from "../db/markets/recordMarketIdentity.ts";
import { findOrgById } from "../db/orgs/findOrgById.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { defineJobHandler, type JobContext } from "../jobs/handler.ts";
import type { JobService } from "../jobs/jobService.ts";
import { type BrandLease, JOB_BRAND_LEASE_WAIT_MS } from "../locks/brandLease.ts";
import { type MarketIdentitySyncDeps, syncMarketIdentity } from "../markets/marketIdentity.ts";
import { retagPromptTypes } from "../prompts/retagPromptTypes.ts";
import { asJobFailure } from "../subWorkspaces/provisioningJobErrors.ts";
import { PROPAGATE_IDENTITY_JOB, PROPAGATE_IDENTITY_PUBLIC, propagationJobId } from "./brandIdentityJobs.ts";

export interface PropagateIdentityJobDeps extends MarketIdentitySyncDeps {
  gateway: Pick<GatewayClient, "projects" | "benchmarks" | "users">;
  db: Db;
  brandLease: BrandLease;
  jobs: Pick<JobService, "submit">;
}

const propagateMetadata = z.object({
  brandId: z.uuid(),
  identityVersion: z.number().int().min(1),
  /** Markets brought to the identity by this job so far (a redelivery keeps counting). */
  marketsSynced: z.number().int().min(0).optional(),
});

/**
 * `propagate-brand-identity` (docs/decisions/0041): every ready market of the brand follows the
 * brand's identity, one market at a time, each under the brand's lease (so two propagations, or a
 * propagation and a deactivate, never write one brand at once). Before each market it reads the
 * brand again: a newer identity (a later PATCH) supersedes this job there — the newer version's job
 * (one per version, a deterministic id) takes over, and is submitted here if its PATCH died before
 * submitting it. A market counts as done once its project carries the identity
 * (`markets.identity_version`), so a crash mid-way resumes at the first market still behind. Its
 * upstream calls are paced by the shared budget at job priority, like every job's.
 */
/**
 * A rename reaches the brand's sub-workspace title (`PUT /v1/workspaces/{id}`), read first so a
 * redelivery renames nothing twice. Best effort: the workspace is tracked by its id, so a title the
 * upstream refuses to change costs nothing but the title; the failure is logged, not retried.
 */
async function renameSubWorkspace(
  deps: PropagateIdentityJobDeps,
  ctx: JobContext,
  brandId: string,
  identityVersion: number,
): Promise<void> {
  const brand = await findBrandById(deps.db, brandId);
  if (!brand || brand.status === "deleted" || brand.identityVersion !== identityVersion) return;
  const workspaceId = brand.subWorkspaceId;
  if (workspaceId === null) return;
  const bearer = await ctx.credential();
  try {
    const workspace = await deps.gateway.users.getWorkspace(bearer, workspaceId);
    if (workspace.title === brand.name) return;
    await deps.gateway.users.renameWorkspace(bearer, workspaceId, brand.name);
    ctx.logger.info({ workspaceId }, "sub-workspace renamed after its brand");
  } catch (error) {
    // The user's credential refused is the job's to report (NEEDS_REAUTH); anything else upstream
    // leaves the old title.
    if (!isGatewayError(error)) throw error;
    if (error.kind === "unauthorized") throw error;
    ctx.logger.warn({ ...error.toLog(), workspaceId }, "sub-workspace not renamed; the brand keeps it");
  }
}

export function propagateIdentityJobHandler(deps: PropagateIdentityJobDeps) {
  return defineJobHandler({
    type: PROPAGATE_IDENTITY_JOB,
    publicType: PROPAGATE_IDENTITY_PUBLIC,
    timeoutMs: 10 * 60_000,
    leaseTtlMs: 11 * 60_000,
    maxAttempts: 8,
    retryDelayMs: (attempt) => Math.min(60_000, 2_000 * 2 ** Math.max(0, attempt - 1)),
    metadataSchema: propagateMetadata,
    async handle(ctx) {
      const { brandId, identityVersion } = ctx.metadata;
      try {
        await renameSubWorkspace(deps, ctx, brandId, identityVersion);
        for (;;) {
          const brand = await findBrandById(deps.db, brandId);
          if (!brand || brand.status === "deleted") return { brandId, status: "brandDeleted" };
          if (brand.identityVersion > identityVersion) {
            const successor = propagationJobId(brandId, brand.identityVersion);
            const bearer = await ctx.credential();
            await deps.jobs.submit({
              id: successor,
              type: PROPAGATE_IDENTITY_JOB,
              orgId: brand.orgId,
              brandId,
              metadata: { brandId, identityVersion: brand.identityVersion },
              createdBy: ctx.job.createdBy,
              credentialToken: bearer,
            });
            return {
              brandId,
              identityVersion,
              status: "superseded",
              supersededBy: successor,
              marketsSynced: ctx.metadata.marketsSynced ?? 0,
            };
          }
          const markets = await listReadyMarkets(deps.db, brandId);
          const behind = markets.find((market) => market.identityVersion < identityVersion);
          if (!behind)
            return {
              brandId,
              identityVersion,
              status: "done",
              marketsSynced: ctx.metadata.marketsSynced ?? 0,
            };
          await deps.brandLease.withBrand(
            brandId,
            async () => {
              const current = await findBrandById(deps.db, brandId);
              if (!current || current.identityVersion !== identityVersion) return;
              const org = await findOrgById(deps.db, current.orgId);
              if (!org) return;
              const bearer = await ctx.credential();
              let retagged = 0;
              const outcome = await syncMarketIdentity(
                deps,
                bearer,
                org,
                current,
                behind,
                async (ref) => {
                  // Every time, not only when the names changed here: a crash after the names were
                  // written must still re-tag on the redelivery.
                  retagged = await retagPromptTypes(
                    {
                      projects: deps.gateway.projects,
                      known: { db: deps.db, clock: ctx.clock, logger: ctx.logger },
                    },
                    { marketId: behind.id, ref: { bearer, workspaceId: ref.ws, projectId: ref.pid } },
                    current,
                  );
                  return retagged > 0;
                },
                // The market is behind this version: an earlier attempt may have died between its
                // writes and its publish, so unpublished changes are published even if none is new.
                { publishPending: true },
              );
              await ctx.assertLeaseHeld();
              await recordRejectedAliases(deps.db, {
                brandId,
                identityVersion,
                rejectedAliases: outcome.rejectedAliases,
              });
              await recordMarketIdentity(deps.db, {
                marketId: behind.id,
                identityVersion,
                now: ctx.clock.databaseTime?.(),
              });
              ctx.logger.info(
                { marketId: behind.id, drift: outcome.drift, retagged, identityVersion },
                "market follows the brand identity",
              );
            },
            { waitMs: JOB_BRAND_LEASE_WAIT_MS },
          );
          await ctx.saveCheckpoint({ marketsSynced: (ctx.metadata.marketsSynced ?? 0) + 1 });
        }
      } catch (error) {
        throw asJobFailure(error);
      }
    },
  });
}
