import type { Principal } from "../auth/principal.ts";
import { asyncProvisioningEnabled, type FlagSource } from "../config/flags.ts";
import { failFreshBrandStart } from "../db/brands/failFreshBrandStart.ts";
import { findBrand } from "../db/brands/findBrand.ts";
import { type BrandRow, insertBrand } from "../db/brands/insertBrand.ts";
import { listBrands } from "../db/brands/listBrands.ts";
import { recordSyncSubWorkspace } from "../db/brands/recordSyncSubWorkspace.ts";
import type { Db } from "../db/database.ts";
import type { OrgRow } from "../db/orgs/insertOrg.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { geoTargetIdFor } from "../markets/geoTarget.ts";
import { passthroughGuardFactory } from "../markets/passthroughGuard.ts";
import { NO_PARENT_WORKSPACE_MESSAGE } from "../markets/writeTarget.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { AcceptedProvisioning, AsyncProvisioning } from "../provisioning/asyncProvisioning.ts";
import { type ProvisioningFailureReason, provisioningStaleMs } from "../provisioning/attemptRules.ts";
import { deactivateBrand } from "../provisioning/deactivation.ts";
import { provisionSubWorkspaceSync } from "../provisioning/syncProvisioning.ts";
import { WorkspaceLifecycle } from "../provisioning/workspaceLifecycle.ts";
import {
  type ActivationMarketResult,
  createActivationMarkets,
  validateActivationMarkets,
} from "./activationMarkets.ts";

export type Brand = BrandRow;

/** The caller of an operation: whose bearer goes upstream, and the request it serves. */
export interface OperationContext {
  bearer: string;
  requestId: string | undefined;
}

/** The market input of `createForBrand` (the markets module's `CreateMarketInput`). */
export interface InitialMarketInput {
  market: string;
  languageCode: string;
  primaryUrl?: string | null;
  modelIds?: string[];
}

/**
 * What provisioning needs of the markets module: create one market for a brand whose workspace is
 * ready, with the same behaviour and errors as the markets endpoint (`marketExists` for a slice
 * that exists). `MarketService` satisfies it.
 */
export interface InitialMarketCreator {
  createForBrand(
    ctx: OperationContext,
    brand: BrandRow,
    org: OrgRow,
    input: InitialMarketInput,
  ): Promise<{ geoTargetId: number; languageCode: string }>;
}

export interface BrandServiceDeps {
  db: Db;
  clock: Clock;
  orgs: OrgService;
  logger?: Logger;
  /** Absent when the process runs without an upstream: provisioning answers 503 configurationError. */
  gateway?: GatewayClient;
  markets?: InitialMarketCreator;
  /** The metered-write seam (deactivate's release); passthrough until allocation is plugged in. */
  meteredWrites?: MeteredWriteGuardFactory;
  /** `SERENITY_SYNC_SETTLE_BUDGET_MS` (config.syncSettleBudgetMs); default 10 s. */
  syncSettleBudgetMs?: number;
  /** Between status reads of a synchronous settle; default 250 ms. */
  settlePollIntervalMs?: number;
  /** Where per-use settings are read (`SERENITY_PROVISIONING_STALE_MS`); default process.env. */
  env?: FlagSource;
  /** The asynchronous producers (`async: true`); without them `async: true` runs the sync path. */
  asyncProvisioning?: AsyncProvisioning;
}

/** What a create or activate request got: done now, or accepted as a provisioning job (202). */
export type Requested<T> = { done: T } | { accepted: AcceptedProvisioning };

export interface CreateFlatBrandInput {
  name: string;
  domain?: string | null;
  primaryUrl?: string | null;
}

export interface SemrushMarketInput {
  market: string;
  languageCode: string;
  generatePrompts?: boolean;
  modelIds?: string[];
}

export interface CreateBrandInput extends CreateFlatBrandInput {
  semrushMarket?: SemrushMarketInput;
  /**
   * `async: true` provisions off the request path (spec/provisioning.md §6); while the master
   * switch `SERENITY_ASYNC_PROVISIONING` is off it silently runs the synchronous path.
   */
  async?: boolean;
}

export interface ActivateInput {
  markets?: { market: string; languageCode: string }[];
  generatePrompts?: boolean;
  async?: boolean;
}

export interface ActivationResult {
  brandId: string;
  status: "active";
  markets: ActivationMarketResult[];
}

export const DEFAULT_SYNC_SETTLE_BUDGET_MS = 10_000;

const silentLogger = {
  child: () => silentLogger,
  info: () => {},
  warn: () => {},
  error: () => {},
  debug: () => {},
} as unknown as Logger;

/** Brands of an org, and their sub-workspace lifecycle. Every lookup goes through tenancy first. */
export class BrandService {
  constructor(private readonly deps: BrandServiceDeps) {}

  /** A brand without `semrushMarket`: created `pending` and flat (spec/api.md §3). */
  async createFlat(principal: Principal, orgId: string, input: CreateFlatBrandInput): Promise<Brand> {
    await this.deps.orgs.getAccessible(principal, orgId);
    return this.#insert(orgId, input);
  }

  /**
   * `POST /orgs/:orgId/brands`. With `semrushMarket`, the brand is provisioned in sub-workspace
   * mode synchronously (spec/provisioning.md §7): the org must have a parent workspace (checked
   * before any write), the brand is inserted `pending`, its workspace is created or adopted and
   * settled, the pointer written (guarded), then the initial market is created.
   *
   * When provisioning fails after the insert, the brand is marked `failed` with a fixed sentence
   * (T7: the row was inserted by this very request) instead of staying flat-looking: a flat brand
   * would write into the org's shared parent, which is never what a `semrushMarket` caller asked for.
   * `activate` retries it (and adopts the workspace a timed-out settle left behind). A failure of
   * the initial market itself (after the brand became active) is reported as is; the brand keeps
   * its workspace and the market can be created again through the markets endpoint.
   */
  async create(
    principal: Principal,
    orgId: string,
    input: CreateBrandInput,
    ctx: { requestId: string | undefined },
  ): Promise<Brand> {
    const org = await this.deps.orgs.getAccessible(principal, orgId);
    if (!input.semrushMarket) return this.#insert(orgId, input);

    const parentWorkspaceId = requireParent(org);
    if (geoTargetIdFor(input.semrushMarket.market) === undefined) {
      throw new ServiceError("invalidRequest", {
        message: "semrushMarket.market must be an ISO-3166 alpha-2 code",
      });
    }
    requireMarketTarget(input);
    const lifecycle = this.#lifecycle();
    const markets = this.#markets();
    const operation = { bearer: principal.bearer, requestId: ctx.requestId };

    const inserted = await this.#insert(orgId, input);
    let brand: BrandRow;
    try {
      brand = await this.#provision(lifecycle, operation, inserted, parentWorkspaceId);
    } catch (error) {
      // A concurrent attempt that found this row owns it now: T7 (guarded by id alone) must not touch it.
      if (!(error instanceof ServiceError && error.code === "semrushProvisioningInProgress")) {
        await failFreshBrandStart(this.deps.db, {
          brandId: inserted.id,
          reason: failureReasonOf(error),
          now: this.deps.clock.now(),
        });
      }
      throw error;
    }
    await markets.createForBrand(operation, brand, org, {
      market: input.semrushMarket.market,
      languageCode: input.semrushMarket.languageCode,
      primaryUrl: input.primaryUrl ?? null,
      ...(input.semrushMarket.modelIds ? { modelIds: input.semrushMarket.modelIds } : {}),
    });
    return brand;
  }

  /**
   * `POST …/serenity/activate`: a brand without a sub-workspace gets one (create-or-adopt, settle,
   * guarded pointer write) and becomes `active`; a brand with one just becomes `active`. Requested
   * markets are then created; an existing slice reports 409 in the list, any other failure fails
   * the request (the markets created before it remain, and report 409 on a retry).
   */
  async activate(
    principal: Principal,
    orgId: string,
    brandId: string,
    input: ActivateInput,
    ctx: { requestId: string | undefined },
  ): Promise<ActivationResult> {
    const { org, brand } = await this.#context(principal, orgId, brandId);
    const requested = input.markets ?? [];
    validateActivationMarkets(requested);
    if (requested.length > 0) requireMarketTarget(brand);
    if (brand.subWorkspaceId !== null && brand.subWorkspaceId === org.parentWorkspaceId) {
      throw new ServiceError("workspaceMisconfigured");
    }
    const operation = { bearer: principal.bearer, requestId: ctx.requestId };
    const markets = requested.length > 0 ? this.#markets() : undefined;

    let active: BrandRow;
    if (brand.subWorkspaceId === null) {
      active = await this.#provision(this.#lifecycle(), operation, brand, requireParent(org));
    } else {
      active = await this.#reactivate(brand);
    }

    const { results } = markets
      ? await createActivationMarkets(markets, operation, active, org, requested)
      : { results: [] };
    return { brandId: brand.id, status: "active", markets: results };
  }

  // ---- asynchronous variants (spec/provisioning.md §6): the work itself is in provisioning/ ----

  /**
   * `POST /orgs/:orgId/brands` as asked: with `semrushMarket` and `async: true` (and the master
   * switch on) the brand is inserted `pending` and a provisioning job chaining `create-market` is
   * accepted; otherwise `create`. If starting the attempt throws for the row just inserted, the
   * row is failed by id (T7) so it never looks flat.
   */
  async createRequested(
    principal: Principal,
    orgId: string,
    input: CreateBrandInput,
    ctx: { requestId: string | undefined },
  ): Promise<Requested<Brand>> {
    const market = input.semrushMarket;
    if (!input.async || !market || !this.#asyncOn())
      return { done: await this.create(principal, orgId, input, ctx) };
    const org = await this.deps.orgs.getAccessible(principal, orgId);
    const parentWorkspaceId = requireParent(org);
    if (geoTargetIdFor(market.market) === undefined) {
      throw new ServiceError("invalidRequest", {
        message: "semrushMarket.market must be an ISO-3166 alpha-2 code",
      });
    }
    requireMarketTarget(input);
    this.#gateway();
    const inserted = await this.#insert(orgId, input);
    try {
      const accepted = await this.deps.asyncProvisioning!.createBrand(
        { sub: principal.sub, bearer: principal.bearer, requestId: ctx.requestId },
        inserted,
        parentWorkspaceId,
        {
          market: market.market,
          languageCode: market.languageCode,
          primaryUrl: input.primaryUrl ?? null,
          ...(market.modelIds ? { modelIds: market.modelIds } : {}),
        },
      );
      return { accepted };
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === "semrushProvisioningInProgress")) {
        await failFreshBrandStart(this.deps.db, { brandId: inserted.id, now: this.deps.clock.now() });
      }
      throw error;
    }
  }

  /**
   * `POST …/serenity/activate` as asked: `async: true` accepts a provisioning job that gives the
   * brand its workspace (or, fast path, confirms the one it has) and chains the market creation.
   */
  async activateRequested(
    principal: Principal,
    orgId: string,
    brandId: string,
    input: ActivateInput,
    ctx: { requestId: string | undefined },
  ): Promise<Requested<ActivationResult>> {
    const { async: wantsAsync, ...rest } = input;
    if (!wantsAsync || !this.#asyncOn()) {
      return { done: await this.activate(principal, orgId, brandId, rest, ctx) };
    }
    const { org, brand } = await this.#context(principal, orgId, brandId);
    const requested = rest.markets ?? [];
    validateActivationMarkets(requested);
    if (requested.length > 0) requireMarketTarget(brand);
    if (brand.subWorkspaceId !== null && brand.subWorkspaceId === org.parentWorkspaceId) {
      throw new ServiceError("workspaceMisconfigured");
    }
    // The fast path polls the pointer and never creates: it needs no parent.
    const parentWorkspaceId =
      brand.subWorkspaceId === null ? requireParent(org) : (org.parentWorkspaceId ?? "");
    this.#gateway();
    const accepted = await this.deps.asyncProvisioning!.activate(
      { sub: principal.sub, bearer: principal.bearer, requestId: ctx.requestId },
      brand,
      parentWorkspaceId,
      requested,
    );
    return { accepted };
  }

  #asyncOn(): boolean {
    return this.deps.asyncProvisioning !== undefined && asyncProvisioningEnabled(this.deps.env);
  }

  /** `POST …/serenity/deactivate` (spec/provisioning.md §6 order; see deactivation.ts). */
  async deactivate(
    principal: Principal,
    orgId: string,
    brandId: string,
    ctx: { requestId: string | undefined },
  ): Promise<{ brandId: string; status: "pending" }> {
    const { org, brand } = await this.#context(principal, orgId, brandId);
    await deactivateBrand(
      {
        db: this.deps.db,
        clock: this.deps.clock,
        logger: this.#logger,
        lifecycle: this.#lifecycle(),
        meteredWrites: this.deps.meteredWrites ?? passthroughGuardFactory,
      },
      { bearer: principal.bearer, requestId: ctx.requestId, brand, org },
    );
    return { brandId: brand.id, status: "pending" };
  }

  async list(principal: Principal, orgId: string): Promise<Brand[]> {
    await this.deps.orgs.getAccessible(principal, orgId);
    return listBrands(this.deps.db, orgId);
  }

  async get(principal: Principal, orgId: string, brandId: string): Promise<Brand> {
    await this.deps.orgs.getAccessible(principal, orgId);
    const brand = await findBrand(this.deps.db, orgId, brandId);
    if (!brand) throw new ServiceError("notFound");
    return brand;
  }

  get #logger(): Logger {
    return this.deps.logger ?? silentLogger;
  }

  /**
   * A brand that already has its workspace just becomes `active` again: the guarded sync write
   * with the same pointer (it loses while an asynchronous attempt owns the brand → 409).
   */
  async #reactivate(brand: BrandRow): Promise<BrandRow> {
    const written = await recordSyncSubWorkspace(this.deps.db, {
      brandId: brand.id,
      subWorkspaceId: brand.subWorkspaceId!,
      now: this.deps.clock.now(),
    });
    if (written.outcome === "recorded") return written.brand;
    throw new ServiceError("semrushProvisioningInProgress");
  }

  #insert(orgId: string, input: CreateFlatBrandInput): Promise<BrandRow> {
    return insertBrand(this.deps.db, {
      orgId,
      name: input.name,
      domain: input.domain ?? null,
      primaryUrl: input.primaryUrl ?? null,
      now: this.deps.clock.now(),
    });
  }

  async #context(
    principal: Principal,
    orgId: string,
    brandId: string,
  ): Promise<{ org: OrgRow; brand: BrandRow }> {
    const org = await this.deps.orgs.getAccessible(principal, orgId);
    const brand = await findBrand(this.deps.db, orgId, brandId);
    if (!brand || brand.status === "deleted") throw new ServiceError("notFound");
    return { org, brand };
  }

  #lifecycle(): WorkspaceLifecycle {
    return new WorkspaceLifecycle({
      db: this.deps.db,
      clock: this.deps.clock,
      gateway: this.#gateway(),
      logger: this.#logger,
      ...(this.deps.settlePollIntervalMs ? { pollIntervalMs: this.deps.settlePollIntervalMs } : {}),
    });
  }

  #gateway(): GatewayClient {
    if (!this.deps.gateway) throw new ServiceError("configurationError");
    return this.deps.gateway;
  }

  #markets(): InitialMarketCreator {
    if (!this.deps.markets) throw new ServiceError("configurationError");
    return this.deps.markets;
  }

  #provision(
    lifecycle: WorkspaceLifecycle,
    operation: OperationContext,
    brand: BrandRow,
    parentWorkspaceId: string,
  ): Promise<BrandRow> {
    return provisionSubWorkspaceSync(
      {
        db: this.deps.db,
        clock: this.deps.clock,
        logger: this.#logger.child({ requestId: operation.requestId }),
        lifecycle,
      },
      {
        bearer: operation.bearer,
        brand,
        parentWorkspaceId,
        settleBudgetMs: this.deps.syncSettleBudgetMs ?? DEFAULT_SYNC_SETTLE_BUDGET_MS,
        staleMs: provisioningStaleMs(this.deps.env),
      },
    );
  }
}

function requireParent(org: OrgRow): string {
  if (!org.parentWorkspaceId)
    throw new ServiceError("invalidRequest", { message: NO_PARENT_WORKSPACE_MESSAGE });
  return org.parentWorkspaceId;
}

/**
 * A market's project needs the brand's domain (or a primary URL to take it from). Checked before
 * any write, so a request that cannot end with a market does not first create a workspace.
 */
function requireMarketTarget(brand: { domain?: string | null; primaryUrl?: string | null }): void {
  if (!brand.domain && !brand.primaryUrl) {
    throw new ServiceError("invalidRequest", {
      message: "The brand needs a domain or a primary URL to create a market",
    });
  }
}

/** The fixed sentence a failed synchronous start leaves on the brand. */
function failureReasonOf(error: unknown): ProvisioningFailureReason {
  if (error instanceof ServiceError) {
    if (error.code === "subworkspaceCreationTimeout") return "didNotSettle";
    if (error.code === "subworkspaceCreationFailed") return "upstreamFailed";
  }
  return "couldNotStart";
}
