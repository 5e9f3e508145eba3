import type { BrandRow } from "../db/brands/brandRow.ts";
import { findBrandById } from "../db/brands/findBrandById.ts";
import type { Db } from "../db/database.ts";
import { deleteMarketRow } from "../db/markets/deleteMarketRow.ts";
import { findMarket } from "../db/markets/findMarket.ts";
import { findOrgById } from "../db/orgs/findOrgById.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { JobContext } from "../jobs/handler.ts";
import { type BrandLease, JOB_BRAND_LEASE_WAIT_MS } from "../locks/brandLease.ts";
import type { Logger } from "../observability/logger.ts";
import type { CreateMarketInput, Market } from "./market.ts";
import type { PromptGenerationHandle } from "./marketGeneration.ts";
import { generationForMarket, type GenerationProducerPort } from "./marketGeneration.ts";
import type { MarketService } from "./marketService.ts";

/**
 * The work a provisioning job chains after its promote (spec/provisioning.md §6): create one
 * market (`create-market`), or the markets an activate asked for (`activate-brand` after a fresh
 * workspace, `activate-markets` for a brand that had one). Each re-checks first that it still
 * applies — the brand exists, is live, and still points at the workspace the hop promoted — and
 * stands down otherwise. It re-checks after its writes as well: a deactivate that ran meanwhile
 * emptied the workspace without seeing the project just made, so that project is deleted again
 * rather than left live behind a "successful" deactivate.
 */

export interface ChainedWorkDeps {
  db: Db;
  /** Chained work is structural: it runs under the brand's lease (docs/decisions/0015). */
  brandLease: BrandLease;
  gateway: Pick<GatewayClient, "projects">;
  markets: Pick<MarketService, "createForBrand">;
  /** The one generation producer: the chained jobs run it as the synchronous endpoints do. */
  generation: GenerationProducerPort;
}

export interface ChainedTarget {
  brandId: string;
  /** The workspace the provisioning hop promoted. */
  workspaceId: string | null;
}

export type ChainedOutcome<T> =
  | { kind: "superseded" }
  | { kind: "done"; value: T; brand: BrandRow; promptGeneration?: PromptGenerationHandle };

/** The job's owner and its exchanged token, as the generation producer's caller. */
export function callerOf(ctx: Pick<JobContext, "job">, bearer: string) {
  return { sub: ctx.job.createdBy ?? "", bearer, requestId: undefined };
}

/**
 * The owner key of the slice reservations a chained job makes: its lineage's root, the same on
 * every redelivery of the job (and on any record of that lineage), so a delivery that died after
 * reserving does not block the next one with `marketExists` (ADR 0007, at-least-once markets).
 */
export function jobReservationKey(job: Pick<JobContext["job"], "id" | "rootJobId">): string {
  return `job:${job.rootJobId ?? job.id}`;
}

export async function createMarketChained(
  deps: ChainedWorkDeps,
  ctx: Pick<JobContext, "credential" | "logger" | "job">,
  target: ChainedTarget,
  input: CreateMarketInput,
  generatePrompts?: boolean,
): Promise<ChainedOutcome<Market>> {
  return underBrandLease(deps, target, async () => {
    const context = await stillApplies(deps.db, target);
    if (!context) return { kind: "superseded" };
    const bearer = await ctx.credential();
    const market = await deps.markets.createForBrand(
      { bearer, requestId: undefined, reservationKey: jobReservationKey(ctx.job) },
      context.brand,
      context.org,
      input,
    );
    const after = await stillApplies(deps.db, target);
    if (!after) {
      await undoMarkets(deps, ctx.logger, bearer, context.brand.id, [market]);
      return { kind: "superseded" };
    }
    const promptGeneration = ctx.job.createdBy
      ? await generationForMarket(
          deps.generation,
          callerOf(ctx, bearer),
          after.brand,
          after.org,
          market,
          generatePrompts,
        )
      : undefined;
    return {
      kind: "done",
      value: market,
      brand: after.brand,
      ...(promptGeneration ? { promptGeneration } : {}),
    };
  });
}

/** Off the request path a busy brand is waited for longer; still busy → the job retries later. */
export function underBrandLease<T>(
  deps: ChainedWorkDeps,
  target: ChainedTarget,
  work: () => Promise<T>,
): Promise<T> {
  return deps.brandLease.withBrand(target.brandId, work, { waitMs: JOB_BRAND_LEASE_WAIT_MS });
}

/** The brand and its org while the chained work applies: live (`active`) and pointing at the target. */
export async function stillApplies(
  db: Db,
  target: ChainedTarget,
): Promise<{ brand: BrandRow; org: OrgWithMetering } | undefined> {
  const brand = await findBrandById(db, target.brandId);
  if (!brand || brand.status !== "active") return undefined;
  if (!target.workspaceId || brand.subWorkspaceId !== target.workspaceId) return undefined;
  const org = await findOrgById(db, brand.orgId);
  return org ? { brand, org } : undefined;
}

/** Deletes the projects (404 = done) and rows of markets this job made for a brand that moved on. */
export async function undoMarkets(
  deps: ChainedWorkDeps,
  log: Logger,
  bearer: string,
  brandId: string,
  made: { geoTargetId: number; languageCode: string }[],
): Promise<void> {
  for (const market of made) {
    const row = await findMarket(deps.db, {
      brandId,
      geoTargetId: market.geoTargetId,
      languageCode: market.languageCode,
    });
    if (!row) continue;
    if (row.projectId) {
      try {
        await deps.gateway.projects.deleteProject(bearer, row.workspaceId, row.projectId);
      } catch (error) {
        if (!isGatewayError(error, "gone")) {
          log.warn(
            { err: error, geoTargetId: market.geoTargetId },
            "could not undo a market of a brand that moved on",
          );
          continue;
        }
      }
    }
    await deleteMarketRow(deps.db, row.id);
    log.info({ geoTargetId: market.geoTargetId }, "undid a market made while the brand moved on");
  }
}
