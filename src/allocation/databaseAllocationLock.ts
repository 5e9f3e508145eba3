import { durationMs, type FlagSource } from "../config/flags.ts";
import { acquireAllocationLock } from "../db/allocation/acquireAllocationLock.ts";
import { releaseAllocationLock } from "../db/allocation/releaseAllocationLock.ts";
import { renewAllocationLock } from "../db/allocation/renewAllocationLock.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { createLeaseRowLock } from "../locks/leaseRowLock.ts";
import type { LockProvider } from "../locks/reentrantLock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { publishLagMs } from "./publishLag.ts";

/** What a section asks its lease's release to do besides: restart the window of its publish. */
export interface ReleaseNote {
  restartPublishWindow: boolean;
  /** The section's clock's time at the release (a test's hand-driven time; production: undefined). */
  now: () => Date | undefined;
}

function isReleaseNote(note: unknown): note is ReleaseNote {
  return typeof note === "object" && note !== null && "restartPublishWindow" in note;
}

/**
 * The cross-process allocation lock: a lease row per sub-workspace in `allocation_locks`
 * (docs/decisions/0001-allocation-concurrency.md), on the lease-row lock of ./leaseRowLock.ts. A
 * wait that runs out is `workspaceBusy`. Taking the lease answers the section's start (the last
 * publish, the model sets: acquireAllocationLock.ts); giving it back restarts the window of a
 * publish the section made (releaseAllocationLock.ts).
 */
export interface DatabaseLockOptions {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  env?: FlagSource;
  /** Lease length; renewed every third of it while held. */
  ttlMs?: number;
  random?: () => number;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
export const DEFAULT_LOCK_TTL_MS = 6_000;

export function createDatabaseLockProvider(options: DatabaseLockOptions): LockProvider {
  const { db, events, logger } = options;
  return createLeaseRowLock({
    clock: options.clock,
    logger,
    ttlMs: options.ttlMs ?? DEFAULT_LOCK_TTL_MS,
    random: options.random,
    rows: {
      acquire: async (subWorkspaceId, holder, now, ttlMs) => {
        const start = await acquireAllocationLock(db, {
          subWorkspaceId,
          holder,
          now,
          ttlMs,
          publishLagMs: publishLagMs(options.env),
        });
        return { taken: start.taken, state: start };
      },
      renew: (subWorkspaceId, holder, now, ttlMs) =>
        renewAllocationLock(db, { subWorkspaceId, holder, now, ttlMs }),
      release: async (subWorkspaceId, holder, note) => {
        await releaseAllocationLock(db, {
          subWorkspaceId,
          holder,
          restartPublishWindow: isReleaseNote(note) && note.restartPublishWindow,
          now: isReleaseNote(note) ? note.now() : undefined,
        });
      },
    },
    names: { keyField: "subWorkspaceId", lock: "allocation lock lease" },
    defaultTimeoutMs: () =>
      durationMs("SERENITY_ALLOCATION_LOCK_TIMEOUT_MS", DEFAULT_LOCK_TIMEOUT_MS, options.env),
    onWait: (waitSeconds, acquired) => events.emit("allocation.lockWait", { waitSeconds, acquired }),
    busy: (subWorkspaceId, timeoutMs, explicit) => {
      // An explicit short wait (a rebalancing try) is expected to fail now and then: not a warning.
      if (explicit) logger.debug({ subWorkspaceId, timeoutMs }, "allocation lock busy");
      else logger.warn({ subWorkspaceId, timeoutMs }, "allocation lock wait timed out");
      return new ServiceError("workspaceBusy", { details: { subWorkspaceId, reason: "lockTimeout" } });
    },
  });
}
