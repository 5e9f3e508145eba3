import { AsyncLocalStorage } from "node:async_hooks";

import { durationMs, type FlagSource } from "../config/flags.ts";
import { acquireBrandLease } from "../db/brandLeases/acquireBrandLease.ts";
import { releaseBrandLease } from "../db/brandLeases/releaseBrandLease.ts";
import { renewBrandLease } from "../db/brandLeases/renewBrandLease.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { withWriteFence } from "../gateway/writeFence.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { createLeaseRowLock } from "./leaseRowLock.ts";
import { type AllocationLock, type LockProvider, reentrant } from "./reentrantLock.ts";

/**
 * The per-brand lease (spec/provisioning.md §9, docs/decisions/0015): a brand's structural
 * operations — activate, deactivate, create / delete market, replace models, and the jobs that do
 * the same — run one at a time across every API and worker process. A lease row per brand in
 * `brand_leases`, taken and renewed by short autocommit statements (no transaction and no pooled
 * connection held across upstream calls), renewed on a heartbeat, freed by a crash within one TTL.
 * Reentrant within one async context: a structural operation that runs another (a synchronous
 * activate creating its markets) does not wait for itself.
 *
 * Prompt writes do not take it: they never create or delete a project or a sub-workspace, and the
 * allocation lock already serialises their metered writes per sub-workspace.
 */
export interface BrandLease {
  /**
   * Runs `work` holding the brand's lease; waits at most `waitMs` (default
   * SERENITY_BRAND_LEASE_TIMEOUT_MS), then throws `brandBusy` (503, retryable) — never runs unserialised.
   */
  withBrand<T>(brandId: string, work: () => Promise<T>, options?: { waitMs?: number }): Promise<T>;
}

export const DEFAULT_BRAND_LEASE_TIMEOUT_MS = 10_000;
export const DEFAULT_BRAND_LEASE_TTL_MS = 30_000;
/** What a job waits: off the request path, a busy brand is worth a longer wait than a retry. */
export const JOB_BRAND_LEASE_WAIT_MS = 60_000;

export interface BrandLeaseOptions {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  env?: FlagSource;
  ttlMs?: number;
  random?: () => number;
}

export function createBrandLease(options: BrandLeaseOptions): BrandLease {
  const provider = databaseBrandLeaseProvider(options);
  // Every upstream write made under the lease is sent only while it is still held (its renewals
  // succeed, with a renewal interval to spare): a holder cut off from PostgreSQL stops writing
  // before its lease can lapse and another holder take the brand.
  const lock: AllocationLock = reentrant(provider, {
    enter: (brandId, lease, work) =>
      withWriteFence(
        {
          held: () => lease.held?.() ?? true,
          lost: () => new ServiceError("brandBusy", { details: { brandId, reason: "leaseLost" } }),
        },
        work,
      ),
  });
  return {
    withBrand(brandId, work, withOptions = {}) {
      if (withOptions.waitMs === undefined) return lock.withLock(brandId, work);
      // reentrant() calls acquire without options: the wait travels in the async context.
      return scopedWait.run(withOptions.waitMs, () => lock.withLock(brandId, work));
    },
  };
}

/** The wait of the withBrand call being entered, when it names one. */
const scopedWait = new AsyncLocalStorage<number>();

function databaseBrandLeaseProvider(options: BrandLeaseOptions): LockProvider {
  const { db, events, logger } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_BRAND_LEASE_TTL_MS;
  return createLeaseRowLock({
    clock: options.clock,
    logger,
    ttlMs,
    // A renewal interval (a third of the TTL) to spare: a write started just in time lands before
    // the lease could lapse, even if the renewal under way fails.
    spareMs: Math.floor(ttlMs / 3),
    pollMaxMs: 250,
    random: options.random,
    rows: {
      acquire: (brandId, holder, now, ttlMs) => acquireBrandLease(db, { brandId, holder, now, ttlMs }),
      renew: (brandId, holder, now, ttlMs) => renewBrandLease(db, { brandId, holder, now, ttlMs }),
      release: async (brandId, holder) => {
        await releaseBrandLease(db, { brandId, holder });
      },
    },
    names: { keyField: "brandId", lock: "brand lease" },
    // reentrant() calls acquire without options: a withBrand wait travels in the async context.
    defaultTimeoutMs: () =>
      scopedWait.getStore() ??
      durationMs("SERENITY_BRAND_LEASE_TIMEOUT_MS", DEFAULT_BRAND_LEASE_TIMEOUT_MS, options.env),
    // A single try (waitMs 0: the upstream reconciler's) refused is routine, not a caller kept
    // waiting: neither the wait metric nor the info line (operators read those as 503 brandBusy).
    onWait: (waitSeconds, acquired) => {
      if (!acquired && scopedWait.getStore() === 0) return;
      events.emit("brand.leaseWait", { waitSeconds, acquired });
    },
    busy: (brandId, timeoutMs) => {
      if (scopedWait.getStore() === 0) logger.debug({ brandId }, "brand lease busy (single try)");
      else logger.info({ brandId, timeoutMs }, "brand lease wait timed out");
      return new ServiceError("brandBusy", { details: { brandId } });
    },
  });
}
