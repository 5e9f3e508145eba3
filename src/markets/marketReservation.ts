import type { Db } from "../db/database.ts";
import { readDatabaseNow } from "../db/databaseTime.ts";
import { deleteMarketRow } from "../db/markets/deleteMarketRow.ts";
import { findMarket } from "../db/markets/findMarket.ts";
import type { MarketRow } from "../db/markets/marketRow.ts";
import { reclaimReservation } from "../db/markets/reclaimReservation.ts";
import { recordReservationProject } from "../db/markets/recordReservationProject.ts";
import { reserveMarket } from "../db/markets/reserveMarket.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { upstreamFailure } from "../gateway/registryErrors.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * A market's reservation in our table, from both ends of a create (createMarket.ts): taking the
 * slice (reclaiming what a crashed or earlier delivery left), and giving it back when the create
 * fails — never dropping a row whose project may still live upstream.
 */
export interface MarketReservationDeps {
  db: Db;
  clock: Clock;
  gateway: Pick<GatewayClient, "projects">;
  staleReservationMs: number;
  /** Where a kept rollback is announced (the metric of failed rollbacks); optional in tests. */
  events?: EventBus;
}

/**
 * A fresh `creating` reservation of the slice (`reserved`), or the market this reservation key
 * already made (`madeEarlier`: a redelivery of work that finished); anything else holding the
 * slice is `marketExists`.
 */
export async function reserve(
  deps: MarketReservationDeps,
  log: Logger,
  bearer: string,
  slice: {
    brandId: string;
    geoTargetId: number;
    languageCode: string;
    country: string;
    workspaceId: string;
    reservationKey: string | undefined;
  },
): Promise<{ kind: "reserved" | "madeEarlier"; row: MarketRow }> {
  const first = await reserveMarket(deps.db, { ...slice, now: deps.clock.databaseTime?.() });
  if (first) return { kind: "reserved", row: first };
  // Taken: by a market, a create in flight, a reservation abandoned by a crashed process, or our
  // own reservation (or market) from an earlier delivery of the same job.
  // Stale on the database's clock: the reservation's stamp was written on it by whichever process
  // reserved, so no two processes' clocks are compared (docs/decisions/0023).
  const databaseNow = await readDatabaseNow(deps.db, deps.clock.databaseTime?.());
  const staleBefore = new Date(databaseNow.getTime() - deps.staleReservationMs);
  // A reclaimable reservation's project goes first: were the delete to fail after the row was
  // reclaimed, nothing would track the project any more (an orphan). Upstream down → the create
  // fails (a job retries it) and the row keeps tracking the project.
  const holder = await findMarket(deps.db, slice);
  const reclaimable =
    holder?.status === "creating" &&
    (holder.updatedAt < staleBefore ||
      (slice.reservationKey !== undefined && holder.reservationKey === slice.reservationKey));
  if (reclaimable && holder.projectId) {
    try {
      await deps.gateway.projects.deleteProject(bearer, holder.workspaceId, holder.projectId);
    } catch (error) {
      if (!isGatewayError(error, "gone")) throw upstreamFailure(error, log, "reclaimReservation");
    }
  }
  const reclaimed = await reclaimReservation(deps.db, { ...slice, staleBefore });
  if (!reclaimed) {
    const existing = slice.reservationKey ? await findMarket(deps.db, slice) : undefined;
    if (existing?.status === "ready" && existing.reservationKey === slice.reservationKey) {
      return { kind: "madeEarlier", row: existing };
    }
    throw new ServiceError("marketExists");
  }
  const own = slice.reservationKey !== undefined && reclaimed.reservationKey === slice.reservationKey;
  log.warn(
    { marketId: reclaimed.id, projectId: reclaimed.projectId },
    own
      ? "reclaimed this job's market reservation from an interrupted delivery"
      : "reclaimed an abandoned market reservation",
  );
  if (reclaimed.projectId) {
    await deleteProjectQuietly(deps, log, bearer, reclaimed.workspaceId, reclaimed.projectId);
  }
  const second = await reserveMarket(deps.db, { ...slice, now: deps.clock.databaseTime?.() });
  if (!second) throw new ServiceError("marketExists");
  return { kind: "reserved", row: second };
}

/**
 * Undoes a failed create: the project (404 = done), then the reservation. When the project cannot
 * be deleted (upstream down), the reservation is KEPT — `creating`, with the project id it recorded
 * — so the project stays tracked and the delete is retried: by the next delivery of the same job
 * (its own reservation key), by any create of the slice once the reservation is stale, and by the
 * upstream reconciler, which treats an old `creating` row with a project id as a failed rollback
 * (docs/decisions/0015). Never drop the row while its project may still live: that is an orphan.
 */
export async function rollBack(
  deps: MarketReservationDeps,
  log: Logger,
  bearer: string,
  reservation: MarketRow,
  projectId: string | undefined,
): Promise<void> {
  if (projectId && !(await deleteProjectQuietly(deps, log, bearer, reservation.workspaceId, projectId))) {
    const kept = await recordReservationProject(deps.db, {
      id: reservation.id,
      projectId,
      now: deps.clock.databaseTime?.(),
    }).catch(() => undefined);
    deps.events?.emit("market.rollbackPending", { kept: Boolean(kept) });
    log.warn(
      { marketId: reservation.id, projectId, kept: Boolean(kept) },
      "rollback could not delete a project; its reservation is kept so the delete is retried",
    );
    return;
  }
  await deleteMarketRow(deps.db, reservation.id, "creating").catch((error: unknown) =>
    log.error({ err: error, marketId: reservation.id }, "could not release a market reservation"),
  );
}

/** Deletes a project best-effort (404 = done); false, logged, when upstream refused or was down. */
export async function deleteProjectQuietly(
  deps: MarketReservationDeps,
  log: Logger,
  bearer: string,
  workspaceId: string,
  projectId: string,
): Promise<boolean> {
  try {
    await deps.gateway.projects.deleteProject(bearer, workspaceId, projectId);
    return true;
  } catch (error) {
    if (isGatewayError(error, "gone")) return true;
    log.warn(
      { err: upstreamFailure(error, log, "deleteProject"), projectId },
      "rollback could not delete a project",
    );
    return false;
  }
}
