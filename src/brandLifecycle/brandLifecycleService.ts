import type { Principal } from "../auth/principal.ts";
import { type BrandContext, loadBrandContext } from "../brands/brandContext.ts";
import { type Brand, type BrandService, insertNewBrand } from "../brands/brandService.ts";
import { asyncProvisioningEnabled, type FlagSource } from "../config/flags.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import { failFreshBrandStart } from "../db/brands/failFreshBrandStart.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { OperationContext } from "../domain/operationContext.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { BrandLease } from "../locks/brandLease.ts";
import { generationForMarket, type GenerationProducerPort } from "../markets/marketGeneration.ts";
import type { Requested } from "../markets/marketRequests.ts";
import type { MarketService } from "../markets/marketService.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { AsyncProvisioning } from "../subWorkspaces/asyncProvisioning.ts";
import { DEFAULT_SYNC_SETTLE_BUDGET_MS, provisioningStaleMs } from "../subWorkspaces/provisioningSettings.ts";
import { WorkspaceLifecycle } from "../subWorkspaces/workspaceLifecycle.ts";
import { generationForActivation } from "./activationGeneration.ts";
import type { ActivateInput, ActivationResult, CreateBrandInput } from "./brandLifecycleRequests.ts";
import { checkActivation, checkCreateWithMarket, requireParent } from "./brandRequestRules.ts";
import { deactivateBrand } from "./deactivation.ts";
import {
  activateSync,
  failureReasonOf,
  provisionBrandSync,
  type SyncRequestDeps,
} from "./syncProvisioning.ts";

export interface BrandLifecycleServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  orgs: OrgService;
  brands: Pick<BrandService, "createFlat">;
  markets: Pick<MarketService, "createForBrand">;
  gateway: GatewayClient;
  /** The metered-write seam (deactivate's release). */
  meteredWrites: MeteredWriteGuardFactory;
  /** Serialises the brand's structural operations across processes (docs/decisions/0015). */
  brandLease: BrandLease;
  /** The asynchronous producers (`async: true`). */
  producers: AsyncProvisioning;
  /** The one generation producer (spec/generation.md §2), run after a market exists. */
  generation: GenerationProducerPort;
  /** `SERENITY_SYNC_SETTLE_BUDGET_MS` (config.syncSettleBudgetMs); default 10 s. */
  syncSettleBudgetMs?: number;
  /** Between status reads of a synchronous settle; default 250 ms. */
  settlePollIntervalMs?: number;
  /** Where per-use settings are read (the async master switch, the stale threshold); default process.env. */
  env?: FlagSource;
}

/**
 * A brand's lifecycle (spec/provisioning.md §6–§7): create (flat, or with its first market),
 * activate, deactivate. Each checks tenancy and its request rules first (brandRequestRules.ts),
 * then runs the synchronous path (syncProvisioning.ts) or, with `async: true` and the master
 * switch on, a producer (subWorkspaces/asyncProvisioning.ts) → 202.
 */
export class BrandLifecycleService {
  constructor(private readonly deps: BrandLifecycleServiceDeps) {}

  /**
   * `POST /orgs/:orgId/brands`. Without `semrushMarket`, a flat brand. With it, the brand is
   * inserted `pending` and given its sub-workspace, synchronously or by a job that chains
   * `create-market`. When provisioning fails for the row just inserted, T7 marks it `failed` with
   * a fixed sentence instead of leaving it flat-looking: a flat brand would write into the org's
   * shared parent, which is never what a `semrushMarket` caller asked for (`activate` retries it,
   * adopting the workspace a timed-out settle left behind).
   */
  async createBrand(
    principal: Principal,
    orgId: string,
    input: CreateBrandInput,
    ctx: { requestId: string | undefined },
  ): Promise<Requested<Brand>> {
    const market = input.semrushMarket;
    if (!market) return { done: await this.deps.brands.createFlat(principal, orgId, input) };
    const org = await this.deps.orgs.getAccessible(principal, orgId);
    const parentWorkspaceId = checkCreateWithMarket(org, { ...input, semrushMarket: market });
    const operation = this.#operation(principal, ctx);
    const initialMarket = {
      market: market.market,
      languageCode: market.languageCode,
      primaryUrl: input.primaryUrl ?? null,
      ...(market.modelIds ? { modelIds: market.modelIds } : {}),
    };
    const inserted = await insertNewBrand(this.deps, orgId, input);
    return this.deps.brandLease.withBrand(inserted.id, async () => {
      if (input.async && this.#asyncOn()) {
        const accepted = await this.#startFresh(inserted, () =>
          this.deps.producers.createBrand({ sub: principal.sub, ...operation }, inserted, parentWorkspaceId, {
            ...initialMarket,
            generatePrompts: market.generatePrompts,
          }),
        );
        return { accepted };
      }
      const sync = this.#sync(operation);
      const brand = await this.#startFresh(inserted, () =>
        provisionBrandSync(sync, operation, inserted, parentWorkspaceId),
      );
      // A failure of the initial market itself (the brand is active by now) is reported as is: the
      // brand keeps its workspace, and the market can be created again through the markets endpoint.
      const created = await this.deps.markets.createForBrand(operation, brand, org, initialMarket);
      const promptGeneration = await generationForMarket(
        this.deps.generation,
        { sub: principal.sub, ...operation },
        brand,
        org,
        created,
        market.generatePrompts,
      );
      return { done: brand, ...(promptGeneration ? { promptGeneration } : {}) };
    });
  }

  /**
   * `POST …/serenity/activate`: the brand gets its workspace (or, having one, becomes `active`
   * again), then the requested markets are created. With `async: true` a provisioning job does it
   * (the fast path confirms a workspace the brand has) and chains the market creation.
   */
  async activate(
    principal: Principal,
    orgId: string,
    brandId: string,
    input: ActivateInput,
    ctx: { requestId: string | undefined },
  ): Promise<Requested<ActivationResult>> {
    return this.#underBrandLease(principal, orgId, brandId, (context) =>
      this.#activate(principal, context, input, ctx),
    );
  }

  async #activate(
    principal: Principal,
    { org, brand }: BrandContext,
    input: ActivateInput,
    ctx: { requestId: string | undefined },
  ): Promise<Requested<ActivationResult>> {
    const requested = input.markets ?? [];
    checkActivation(org, brand, requested);
    const operation = this.#operation(principal, ctx);
    if (input.async && this.#asyncOn()) {
      // The fast path polls the pointer and never creates: it needs no parent.
      const parentWorkspaceId =
        brand.subWorkspaceId === null ? requireParent(org) : (org.parentWorkspaceId ?? "");
      return {
        accepted: await this.deps.producers.activate(
          { sub: principal.sub, ...operation },
          brand,
          parentWorkspaceId,
          requested,
          input.generatePrompts,
        ),
      };
    }
    const activation = await activateSync(this.#sync(operation), { operation, org, brand, requested });
    const markets = await generationForActivation(
      this.deps.generation,
      { sub: principal.sub, ...operation },
      brand,
      org,
      activation.markets,
      input.generatePrompts,
    );
    return { done: { ...activation, markets } };
  }

  /** `POST …/serenity/deactivate` (spec/provisioning.md §6 order; see deactivation.ts). */
  async deactivate(
    principal: Principal,
    orgId: string,
    brandId: string,
    ctx: { requestId: string | undefined },
  ): Promise<{ brandId: string; status: "pending" }> {
    return this.#underBrandLease(principal, orgId, brandId, async ({ org, brand }) => {
      await deactivateBrand(
        { ...this.deps, lifecycle: this.#lifecycle() },
        { ...this.#operation(principal, ctx), brand, org },
      );
      return { brandId: brand.id, status: "pending" as const };
    });
  }

  #asyncOn(): boolean {
    return asyncProvisioningEnabled(this.deps.env);
  }

  /**
   * A structural operation on one brand: tenancy first (a 404 never waits for a lease), then the
   * brand's lease (ADR 0015), then the brand read again under it — what a concurrent deactivate or
   * activate left is what `work` acts on.
   */
  async #underBrandLease<T>(
    principal: Principal,
    orgId: string,
    brandId: string,
    work: (context: BrandContext) => Promise<T>,
  ): Promise<T> {
    await loadBrandContext(this.deps, principal, orgId, brandId);
    return this.deps.brandLease.withBrand(brandId, async () =>
      work(await loadBrandContext(this.deps, principal, orgId, brandId)),
    );
  }

  #operation(principal: Principal, ctx: { requestId: string | undefined }): OperationContext {
    return { bearer: principal.bearer, requestId: ctx.requestId };
  }

  /**
   * Starts provisioning the brand this very request inserted; when that throws, T7 fails the row
   * (by id alone) so it never looks flat — unless a concurrent attempt that found the row owns it
   * now (`semrushProvisioningInProgress`): T7 must not touch it then.
   */
  async #startFresh<T>(inserted: BrandRow, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === "semrushProvisioningInProgress")) {
        await failFreshBrandStart(this.deps.db, {
          brandId: inserted.id,
          reason: failureReasonOf(error),
          now: this.deps.clock.databaseTime?.(),
        });
      }
      throw error;
    }
  }

  #sync(operation: OperationContext): SyncRequestDeps {
    return {
      db: this.deps.db,
      clock: this.deps.clock,
      logger: this.deps.logger.child({ requestId: operation.requestId }),
      lifecycle: this.#lifecycle(),
      markets: this.deps.markets,
      settleBudgetMs: this.deps.syncSettleBudgetMs ?? DEFAULT_SYNC_SETTLE_BUDGET_MS,
      staleMs: provisioningStaleMs(this.deps.env),
    };
  }

  #lifecycle(): WorkspaceLifecycle {
    return new WorkspaceLifecycle({
      db: this.deps.db,
      clock: this.deps.clock,
      gateway: this.deps.gateway,
      logger: this.deps.logger,
      ...(this.deps.settlePollIntervalMs ? { pollIntervalMs: this.deps.settlePollIntervalMs } : {}),
    });
  }
}
