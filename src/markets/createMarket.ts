import type { CatalogueModel, CatalogueService } from "../catalogues/catalogueService.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import type { Db } from "../db/database.ts";
import { deleteMarketRow } from "../db/markets/deleteMarketRow.ts";
import { listReadyMarkets } from "../db/markets/listReadyMarkets.ts";
import { markMarketReady } from "../db/markets/markMarketReady.ts";
import { recordMarketIdentity } from "../db/markets/recordMarketIdentity.ts";
import { recordReservationProject } from "../db/markets/recordReservationProject.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { countryName, geoTargetIdFor } from "../domain/geoTarget.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { OperationContext } from "../domain/operationContext.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { atUpstreamEdge, upstreamFailure } from "../gateway/registryErrors.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { createOrAdoptProject } from "./createOrAdopt.ts";
import { DEFAULT_MODEL_KEYS } from "./defaultModels.ts";
import { describeMarket } from "./describeMarket.ts";
import { rememberModels } from "./knownModels.ts";
import type { CreateMarketInput, Market } from "./market.ts";
import { applyMarketIdentity, type ProjectRef } from "./marketIdentity.ts";
import { deleteProjectQuietly, reserve, rollBack } from "./marketReservation.ts";
import { seedMarketTaxonomy } from "./marketTaxonomy.ts";
import { addModels, planModelChange, removeModels } from "./projectModels.ts";
import { meteredWriteGuardFor, resolveWriteTarget } from "./writeTarget.ts";

export interface CreateMarketDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  catalogue: CatalogueService;
  gateway: GatewayClient;
  meteredWrites: MeteredWriteGuardFactory;
  staleReservationMs: number;
  /** Where a kept rollback is announced (the metric of failed rollbacks); optional in tests. */
  events?: EventBus;
}

/**
 * Create market (spec/api.md §3): validate, reserve the slice in our table, then upstream
 * create project → PATCH primary_url (non-fatal) → read the project's models → add/remove models →
 * publish, and only then mark the reservation ready. Any failure rolls back: the project is deleted
 * best-effort and the reservation released, so a retry starts clean.
 *
 * `reservationKey` makes the create safe to run again for the same logical work (a job
 * redelivered at least once, ADR 0007): a reservation left under the same key by a delivery that
 * died is reclaimed at once (its orphan project deleted) instead of blocking the slice for the
 * stale threshold, and a market already made under the key is answered as made, not as
 * `marketExists`. Without a key (a synchronous request) a taken slice is `marketExists`.
 */
export async function createMarketForBrand(
  deps: CreateMarketDeps,
  ctx: OperationContext,
  brand: BrandRow,
  org: OrgWithMetering,
  input: CreateMarketInput,
): Promise<Market> {
  const log = deps.logger;
  const projects = deps.gateway.projects;
  const target = resolveWriteTarget(brand, org);
  const country = input.market.toUpperCase();
  const geoTargetId = geoTargetIdFor(country);
  if (geoTargetId === undefined) {
    throw new ServiceError("invalidRequest", {
      message: "market must be an ISO 3166-1 alpha-2 country code",
    });
  }
  const givenUrl = input.primaryUrl ?? brand.primaryUrl ?? undefined;
  const domain = brand.domain ?? hostOf(givenUrl);
  if (!domain) {
    throw new ServiceError("invalidRequest", {
      message: "The brand needs a domain or a primary URL to create a market",
    });
  }
  // Upstream ignores primary_url on create and a first publish without one fails
  // (initial_publish_failed), so a project always gets one: the given URL, else the domain's home.
  const primaryUrl = givenUrl ?? `https://${domain}/`;
  const language = await deps.catalogue.resolveLanguage(ctx.bearer, input.languageCode);
  const models = await modelsForNewMarket(deps, ctx.bearer, brand, input.modelIds);

  const reserved = await reserve(deps, log, ctx.bearer, {
    brandId: brand.id,
    geoTargetId,
    languageCode: language.code,
    country,
    workspaceId: target.workspaceId,
    reservationKey: ctx.reservationKey,
  });
  if (reserved.kind === "madeEarlier") {
    log.info({ projectId: reserved.row.projectId }, "market already made under this reservation key");
    const row = reserved.row;
    return atUpstreamEdge(log, "describeMarket", () => describeMarket(projects, ctx.bearer, row));
  }
  const reservation = reserved.row;
  const guard = meteredWriteGuardFor(deps.meteredWrites, target, {
    orgId: org.id,
    brandId: brand.id,
    operation: ctx,
  });

  let projectId: string | undefined;
  let identityApplied = false;
  try {
    // ONE guarded section for every metered write of the create — project create, model adds,
    // publish — so one lock and one resources read (SPEC §7). Its need is the project; the model
    // adds stage nothing on a project without texts, and publish needs nothing more.
    projectId = await guard.section({ projects: 1 }, async (write) => {
      const project = await write(
        "projectCreate",
        // Create-or-adopt: after a transient failure, the project the first try may have made.
        () =>
          createOrAdoptProject({ db: deps.db, projects, logger: log }, ctx.bearer, target.workspaceId, {
            name: `${brand.name} ${country} ${language.code}`,
            brandNameDisplay: brand.name,
            brandNames: [brand.name, ...brand.aliases],
            domain,
            countryCode: country,
            locationId: geoTargetId,
            locationName: countryName(country),
            languageId: language.id,
          }),
        { projects: 1 },
      );
      const id = project.id;
      projectId = id; // for the rollback, should a later step fail
      if (
        !(await recordReservationProject(deps.db, {
          id: reservation.id,
          projectId: id,
          now: deps.clock.databaseTime?.(),
        }))
      ) {
        // Reclaimed under us (stale, or by a redelivery of our own job): stop before more writes;
        // the rollback below deletes the project just made.
        log.error({ projectId: id }, "market reservation lost while creating");
        throw new ServiceError("marketExists");
      }
      const ref = { bearer: ctx.bearer, workspaceId: target.workspaceId, projectId: id };
      if (primaryUrl) {
        try {
          await projects.patchProject(ctx.bearer, target.workspaceId, id, { primaryUrl });
        } catch (error) {
          // The market is usable without it; the primary URL can be set again later.
          log.warn(
            { err: upstreamFailure(error, log, "patchPrimaryUrl") },
            "primary_url not set; continuing",
          );
        }
      }
      const current = await projects.listProjectAiModels(ctx.bearer, target.workspaceId, id);
      const plan = planModelChange(
        current,
        models.map((model) => model.id),
      );
      // A new project holds no texts: adding a model stages nothing.
      await removeModels(projects, ref, plan);
      await addModels(projects, write, ref, plan, 0);
      // Serenity's tags (two round trips, unmetered), before the publish that makes them live.
      await seedMarketTaxonomy(
        { db: deps.db, clock: deps.clock, logger: log, projects },
        ref,
        reservation.id,
      );
      identityApplied = await startFromIdentity(
        deps,
        log,
        { bearer: ctx.bearer, ws: target.workspaceId, pid: id },
        brand,
      );
      await write("publish", () => projects.publishProject(ctx.bearer, target.workspaceId, id));
      return id;
    });
  } catch (error) {
    // The project vanished while it was being made (a concurrent change upstream): the market
    // request conflicts with the state upstream (409), it is not a missing resource of the caller.
    const mapped = isGatewayError(error, "gone")
      ? new ServiceError("conflict", { cause: upstreamFailure(error, log, "createMarket") })
      : upstreamFailure(error, log, "createMarket");
    await rollBack(deps, log, ctx.bearer, reservation, projectId);
    throw mapped;
  }

  const ready = await markMarketReady(deps.db, {
    id: reservation.id,
    projectId,
    now: deps.clock.databaseTime?.(),
  });
  if (!ready) {
    // Either our reservation was reclaimed as stale while we worked (the slice belongs to someone
    // else now: marketExists), or it is still ours but the brand stopped writing there (a
    // deactivate or a re-point won the race: invalidState). Either way the project must go.
    const stillOurs = await deleteMarketRow(deps.db, reservation.id, "creating");
    log.error({ projectId, brandMoved: Boolean(stillOurs) }, "market could not be marked ready");
    await deleteProjectQuietly(deps, log, ctx.bearer, target.workspaceId, projectId);
    throw new ServiceError(stillOurs ? "invalidState" : "marketExists");
  }
  // The project carries the identity of the version it was made from (a later one is the
  // propagation's, or the reconciler's drift repair's).
  if (identityApplied) {
    await recordMarketIdentity(deps.db, {
      marketId: reservation.id,
      identityVersion: brand.identityVersion,
      now: deps.clock.databaseTime?.(),
    });
  }
  // Serenity set the model list itself: remember it, so a bulk create need not read it upstream.
  await rememberModels(
    { db: deps.db, clock: deps.clock, logger: log },
    { marketId: reservation.id, workspaceId: target.workspaceId, projectId },
    models.map((model) => model.id),
  );
  return {
    geoTargetId,
    languageCode: language.code,
    country,
    projectId,
    // Publishing was accepted (202) and completes in the background upstream.
    publishStatus: "publishing",
    models: models.map(({ id, key, name }) => ({ id, key, name })),
    promptCount: 0,
    createdAt: ready.createdAt,
  };
}

/**
 * The request's models; else those of the brand's oldest market (a brand tracks the same models
 * everywhere unless told otherwise); else the default set (ADR 0005).
 */
async function modelsForNewMarket(
  deps: CreateMarketDeps,
  bearer: string,
  brand: BrandRow,
  modelIds: string[] | undefined,
): Promise<CatalogueModel[]> {
  if (modelIds && modelIds.length > 0) return deps.catalogue.resolveModels(bearer, modelIds);
  const [existing] = await listReadyMarkets(deps.db, brand.id);
  if (existing?.projectId) {
    try {
      const assignments = await deps.gateway.projects.listProjectAiModels(
        bearer,
        existing.workspaceId,
        existing.projectId,
      );
      if (assignments.length > 0) {
        return assignments.map(({ model }) => ({ id: model.id, key: model.key, name: model.name }));
      }
    } catch (error) {
      // Copying is a convenience: an unreadable sibling falls back to the defaults.
      deps.logger.warn({ err: upstreamFailure(error, deps.logger, "copyModels") }, "using default models");
    }
  }
  const catalogue = await deps.catalogue.models(bearer);
  return DEFAULT_MODEL_KEYS.flatMap((key) => catalogue.filter((model) => model.key === key));
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A market created after its brand's identity was set starts from it (spec/api.md §5): its
 * benchmarks, CI competitors and brand URLs are written before the create's one publish. Best
 * effort: a failure leaves the market behind the brand's version (the next propagation or the
 * reconciler's drift repair brings it along), never fails the create.
 */
async function startFromIdentity(
  deps: CreateMarketDeps,
  log: Logger,
  ref: ProjectRef,
  brand: BrandRow,
): Promise<boolean> {
  if (brand.identityVersion === 0) return false;
  try {
    await applyMarketIdentity(deps.gateway, ref, brand);
    return true;
  } catch (error) {
    log.warn(
      { err: upstreamFailure(error, log, "marketIdentity") },
      "the new market's identity is not set; the drift repair sets it",
    );
    return false;
  }
}
