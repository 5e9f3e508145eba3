import type { Principal } from "../auth/principal.ts";
import { type BrandContext, loadBrandContext } from "../brands/brandContext.ts";
import type { CatalogueModel, CatalogueService } from "../catalogues/catalogueService.ts";
import { boundedMap } from "../concurrency/boundedMap.ts";
import { asyncProvisioningEnabled, type FlagSource } from "../config/flags.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import { findBrandById } from "../db/brands/findBrandById.ts";
import type { Db } from "../db/database.ts";
import { readDatabaseNow } from "../db/databaseTime.ts";
import { deleteMarketRow } from "../db/markets/deleteMarketRow.ts";
import { findMarket } from "../db/markets/findMarket.ts";
import { listReadyMarkets } from "../db/markets/listReadyMarkets.ts";
import type { MarketRow } from "../db/markets/marketRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { RELEASE_FLOOR } from "../domain/allocation.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { geoTargetIdFor } from "../domain/geoTarget.ts";
import type { MeteredWriteGuard, MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { OperationContext } from "../domain/operationContext.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { atUpstreamEdge, upstreamFailure } from "../gateway/registryErrors.ts";
import type { BrandLease } from "../locks/brandLease.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { AsyncProvisioning } from "../subWorkspaces/asyncProvisioning.ts";
import { createMarketForBrand } from "./createMarket.ts";
import { describeMarket } from "./describeMarket.ts";
import { forgetModels, rememberModels } from "./knownModels.ts";
import { type CreateMarketInput, type Market } from "./market.ts";
import { type MarketDetail, marketDetail } from "./marketDetail.ts";
import { generationForMarket, type GenerationProducerPort } from "./marketGeneration.ts";
import { requireMarketTarget } from "./marketRequestRules.ts";
import type { CreateMarketRequest, Requested } from "./marketRequests.ts";
import {
  addModels,
  modelAddUnits,
  type ModelChange,
  modelChangeOf,
  planModelChange,
  projectTextCount,
  removeModels,
} from "./projectModels.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "./writeTarget.ts";

export interface MarketServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  orgs: OrgService;
  catalogue: CatalogueService;
  gateway: GatewayClient;
  meteredWrites: MeteredWriteGuardFactory;
  /** Serialises the brand's structural operations across processes (docs/decisions/0015). */
  brandLease: BrandLease;
  events?: EventBus;
  /** The asynchronous producer of `async: true` creates. */
  producers: Pick<AsyncProvisioning, "createMarket">;
  /** The one generation producer (spec/generation.md §2), run after a market exists. */
  generation: GenerationProducerPort;
  /** Where the async master switch is read, per use; default process.env. */
  env?: FlagSource;
  /** A `creating` reservation untouched this long is abandoned and may be reclaimed; default 10 min. */
  staleReservationMs?: number;
}

/** Upstream reads in flight per list request. */
const LIST_CONCURRENCY = 4;
/**
 * A `creating` reservation untouched this long is abandoned: a create of the slice may reclaim it,
 * and the upstream reconciler drops one that never recorded a project.
 */
export const DEFAULT_STALE_RESERVATION_MS = 10 * 60_000;

/** Markets (country × language slices of a brand, one upstream project each) and their models. */
export class MarketService {
  constructor(private readonly deps: MarketServiceDeps) {}

  get staleReservationMs(): number {
    return this.deps.staleReservationMs ?? DEFAULT_STALE_RESERVATION_MS;
  }

  /**
   * `POST …/serenity/markets` as asked. With `async: true` (and the master switch on), a brand
   * with its sub-workspace gets a provisioning job that polls the pointer (fast path) and chains
   * `create-market`; a flat-looking brand whose provisioning is pending or failed →
   * `semrushProvisioningIncomplete`; a flat brand (no provisioning history) has nothing to
   * provision and is served synchronously. Otherwise the market is created now (`createForBrand`).
   * Tenancy first (a 404 never waits for a lease), then the brand's lease (ADR 0015), then the
   * brand read again under it.
   */
  async create(
    principal: Principal,
    orgId: string,
    brandId: string,
    input: CreateMarketRequest,
    ctx: { requestId: string | undefined },
  ): Promise<Requested<Market>> {
    await this.#context(principal, orgId, brandId);
    return this.deps.brandLease.withBrand(brandId, async () =>
      this.#create(principal, await this.#context(principal, orgId, brandId), input, ctx),
    );
  }

  async #create(
    principal: Principal,
    { org, brand }: BrandContext,
    input: CreateMarketRequest,
    ctx: { requestId: string | undefined },
  ): Promise<Requested<Market>> {
    const { async: wantsAsync, generatePrompts, ...market } = input;
    const operation: OperationContext = { bearer: principal.bearer, requestId: ctx.requestId };
    const createNow = async (): Promise<Requested<Market>> => {
      const created = await this.createForBrand(operation, brand, org, market);
      const promptGeneration = await generationForMarket(
        this.deps.generation,
        { sub: principal.sub, ...operation },
        brand,
        org,
        created,
        generatePrompts,
      );
      return { done: created, ...(promptGeneration ? { promptGeneration } : {}) };
    };
    if (!wantsAsync || !asyncProvisioningEnabled(this.deps.env)) return createNow();
    if (brand.subWorkspaceId === null) {
      if (brand.provisioningStatus !== null) throw new ServiceError("semrushProvisioningIncomplete");
      return createNow();
    }
    if (brand.subWorkspaceId === org.parentWorkspaceId) throw new ServiceError("workspaceMisconfigured");
    // Say now what a job would only find out later.
    const geoTargetId = geoTargetIdFor(market.market.toUpperCase());
    if (geoTargetId === undefined) {
      throw new ServiceError("invalidRequest", {
        message: "market must be an ISO 3166-1 alpha-2 country code",
      });
    }
    requireMarketTarget({ domain: brand.domain, primaryUrl: market.primaryUrl || brand.primaryUrl });
    const languageCode = market.languageCode.toLowerCase();
    if (await findMarket(this.deps.db, { brandId: brand.id, geoTargetId, languageCode })) {
      throw new ServiceError("marketExists");
    }
    return {
      accepted: await this.deps.producers.createMarket(
        { sub: principal.sub, ...operation },
        brand,
        org.parentWorkspaceId ?? "",
        { ...market, generatePrompts },
      ),
    };
  }

  /**
   * The create-market flow without tenancy lookups, for callers that already hold the brand and
   * org (`create`, a brand's lifecycle, the chained jobs). Same behaviour and errors as a synchronous `create`.
   */
  async createForBrand(
    ctx: OperationContext,
    brand: BrandRow,
    org: OrgWithMetering,
    input: CreateMarketInput,
  ): Promise<Market> {
    return this.deps.brandLease.withBrand(brand.id, async () => {
      // Read again under the lease: a deactivate or an activate that held it may have moved the
      // brand since the caller read it.
      const current = await findBrandById(this.deps.db, brand.id);
      if (!current || current.status === "deleted") throw new ServiceError("notFound");
      return createMarketForBrand(
        {
          ...this.deps,
          staleReservationMs: this.staleReservationMs,
          logger: this.#log(ctx, current),
        },
        ctx,
        current,
        org,
        input,
      );
    });
  }

  /** `GET …/serenity/markets`: each ready market with its upstream state, read with bounded concurrency. */
  async list(
    principal: Principal,
    orgId: string,
    brandId: string,
    ctx: { requestId: string | undefined } = { requestId: undefined },
  ): Promise<Market[]> {
    const { brand } = await this.#context(principal, orgId, brandId);
    const gateway = this.deps.gateway;
    const log = this.#log({ bearer: principal.bearer, requestId: ctx.requestId }, brand);
    const rows = await listReadyMarkets(this.deps.db, brand.id);
    return boundedMap(rows, LIST_CONCURRENCY, (row) =>
      atUpstreamEdge(log, "describeMarket", () => describeMarket(gateway.projects, principal.bearer, row)),
    );
  }

  /** `DELETE …/markets/:geoTargetId/:languageCode`: the project (404 upstream = done), the row, then release. */
  async delete(
    principal: Principal,
    orgId: string,
    brandId: string,
    geoTargetId: number,
    languageCode: string,
    ctx: { requestId: string | undefined } = { requestId: undefined },
  ): Promise<void> {
    const context = await this.#context(principal, orgId, brandId);
    await this.deps.brandLease.withBrand(brandId, () =>
      this.#delete(context, principal.bearer, geoTargetId, languageCode, ctx),
    );
  }

  async #delete(
    context: BrandContext,
    bearer: string,
    geoTargetId: number,
    languageCode: string,
    ctx: { requestId: string | undefined },
  ): Promise<void> {
    const brandId = context.brand.id;
    const operation = { bearer, requestId: ctx.requestId };
    const log = this.#log(operation, context.brand);
    const row = await findMarket(this.deps.db, {
      brandId,
      geoTargetId,
      languageCode: languageCode.toLowerCase(),
    });
    if (!row) throw new ServiceError("notFound");
    if (row.status === "creating" && !(await this.#isStale(row))) throw new ServiceError("invalidState");
    if (row.projectId) {
      await this.#deleteProject(log, operation.bearer, row.workspaceId, row.projectId);
    }
    await deleteMarketRow(this.deps.db, row.id);
    await this.#releaseSurplus(log, this.#guard(context, row.workspaceId, operation));
  }

  /** `PUT …/markets/:geoTargetId/:languageCode/models`: the project tracks exactly `modelIds`. */
  async replaceModels(
    principal: Principal,
    orgId: string,
    brandId: string,
    geoTargetId: number,
    languageCode: string,
    modelIds: string[],
    ctx: { requestId: string | undefined } = { requestId: undefined },
  ): Promise<Market> {
    if (modelIds.length < 1 || modelIds.length > 50) {
      throw new ServiceError("invalidRequest", { message: "modelIds must hold 1 to 50 models" });
    }
    const context = await this.#context(principal, orgId, brandId);
    return this.deps.brandLease.withBrand(brandId, () =>
      this.#replaceModels(context, principal, geoTargetId, languageCode, modelIds, ctx),
    );
  }

  async #replaceModels(
    context: BrandContext,
    principal: Principal,
    geoTargetId: number,
    languageCode: string,
    modelIds: string[],
    ctx: { requestId: string | undefined },
  ): Promise<Market> {
    const brandId = context.brand.id;
    const operation = { bearer: principal.bearer, requestId: ctx.requestId };
    const log = this.#log(operation, context.brand);
    const row = await this.readyMarket(brandId, geoTargetId, languageCode);
    const gateway = this.deps.gateway;
    const models: CatalogueModel[] = await this.deps.catalogue.resolveModels(principal.bearer, modelIds);
    const guard = this.#guard(context, row.workspaceId, operation);
    const ref = { bearer: principal.bearer, workspaceId: row.workspaceId, projectId: row.projectId! };
    const known = { db: this.deps.db, clock: this.deps.clock, logger: log };
    // Forgotten before the change, so one that fails half-way leaves no stale set behind.
    await forgetModels(known, row.id);
    const change = await atUpstreamEdge(log, "replaceModels", async (): Promise<ModelChange> => {
      const current = await gateway.projects.listProjectAiModels(ref.bearer, ref.workspaceId, ref.projectId);
      const plan = planModelChange(
        current,
        models.map((model) => model.id),
      );
      const change = modelChangeOf(plan);
      if (change.added.length === 0 && change.removed.length === 0) return change;
      await removeModels(gateway.projects, ref, plan);
      // One section for the adds and the publish: one lock, one resources read (SPEC §7). Each add
      // stages one unit per text, counted once the lock is held: a prompt write may add texts
      // until then, and a need short of what the adds stage would leave the publish's bound short
      // of what it moved (docs/decisions/0030, addendum).
      let counting: Promise<number> | undefined;
      const texts = () =>
        (counting ??= plan.added.length > 0 ? projectTextCount(gateway.projects, ref) : Promise.resolve(0));
      await guard.section(
        async () => ({ prompts: modelAddUnits(plan, await texts()) }),
        async (write) => {
          await addModels(gateway.projects, write, ref, plan, await texts());
          await write("publish", () =>
            gateway.projects.publishProject(ref.bearer, ref.workspaceId, ref.projectId),
          );
        },
        { needUnderLock: true },
      );
      return change;
    });
    await rememberModels(
      known,
      { marketId: row.id, workspaceId: row.workspaceId, projectId: row.projectId },
      models.map((model) => model.id),
    );
    if (change.removed.length > change.added.length) await this.#releaseSurplus(log, guard);
    return atUpstreamEdge(log, "describeMarket", () =>
      describeMarket(gateway.projects, principal.bearer, row),
    );
  }

  /** `GET …/serenity/markets/:geoTargetId/:languageCode`: one ready market with its upstream detail. */
  async detail(
    principal: Principal,
    orgId: string,
    brandId: string,
    geoTargetId: number,
    languageCode: string,
  ): Promise<MarketDetail> {
    const { brand } = await this.#context(principal, orgId, brandId);
    const row = await this.readyMarket(brandId, geoTargetId, languageCode);
    const log = this.#log({ bearer: principal.bearer, requestId: undefined }, brand);
    return atUpstreamEdge(log, "marketDetail", () =>
      marketDetail(this.deps.gateway.projects, principal.bearer, row),
    );
  }

  /** A ready market of the brand, else notFound (a reservation still being created is not a market yet). */
  async readyMarket(
    brandId: string,
    geoTargetId: number,
    languageCode: string,
  ): Promise<MarketRow & { projectId: string }> {
    const row = await findMarket(this.deps.db, {
      brandId,
      geoTargetId,
      languageCode: languageCode.toLowerCase(),
    });
    if (!row || row.status !== "ready" || !row.projectId) throw new ServiceError("notFound");
    return row as MarketRow & { projectId: string };
  }

  async #deleteProject(log: Logger, bearer: string, workspaceId: string, projectId: string): Promise<void> {
    try {
      await this.deps.gateway.projects.deleteProject(bearer, workspaceId, projectId);
    } catch (error) {
      if (isGatewayError(error, "gone")) return;
      throw upstreamFailure(error, log, "deleteProject");
    }
  }

  async #releaseSurplus(log: Logger, guard: MeteredWriteGuard): Promise<void> {
    try {
      await guard.releaseSurplus(RELEASE_FLOOR, "release");
    } catch (error) {
      // Release is best effort: a failure leaves surplus for the sweep, never fails the delete.
      log.warn({ err: error }, "release after a market change failed");
    }
  }

  /** The guard of the workspace a market's project lives in (flat when that is the org's parent). */
  #guard(context: BrandContext, workspaceId: string, operation: OperationContext): MeteredWriteGuard {
    return meteredWriteGuardFor(this.deps.meteredWrites, marketWriteTarget(workspaceId, context.org), {
      orgId: context.org.id,
      brandId: context.brand.id,
      operation,
    });
  }

  /** On the database's clock, which stamped the reservation (docs/decisions/0023). */
  async #isStale(row: MarketRow): Promise<boolean> {
    const now = await readDatabaseNow(this.deps.db, this.deps.clock.databaseTime?.());
    return row.updatedAt.getTime() < now.getTime() - this.staleReservationMs;
  }

  #context(principal: Principal, orgId: string, brandId: string): Promise<BrandContext> {
    return loadBrandContext(this.deps, principal, orgId, brandId);
  }

  #log(ctx: OperationContext, brand: BrandRow): Logger {
    return this.deps.logger.child({ requestId: ctx.requestId, orgId: brand.orgId, brandId: brand.id });
  }
}
