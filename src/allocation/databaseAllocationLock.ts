import { randomUUID } from "node:crypto";

import { durationMs, type FlagSource } from "../config/flags.ts";
import { acquireAllocationLock } from "../db/allocation/acquireAllocationLock.ts";
import { releaseAllocationLock } from "../db/allocation/releaseAllocationLock.ts";
import { renewAllocationLock } from "../db/allocation/renewAllocationLock.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { AcquireOptions, LockLease, LockProvider } from "./allocationLock.ts";

/**
 * The cross-process allocation lock: a lease row per sub-workspace in `allocation_locks`
 * (docs/decisions/0001-allocation-concurrency.md). Each statement is a short autocommit query, so
 * no transaction and no pooled connection is held while the lock is held or waited for. A holder
 * renews its lease on a heartbeat, so the TTL can stay short and a crashed holder's lock frees
 * itself within one TTL. Waiters poll with jittered, capped backoff through the injected clock.
 */
export interface DatabaseLockOptions {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  env?: FlagSource;
  /** Lease length; renewed every third of it while held. */
  ttlMs?: number;
  /** First poll backoff and its cap. */
  pollMinMs?: number;
  pollMaxMs?: number;
  random?: () => number;
}

const HEARTBEAT_STOPPED = "heartbeat stopped";

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
export const DEFAULT_LOCK_TTL_MS = 6_000;

export function createDatabaseLockProvider(options: DatabaseLockOptions): LockProvider {
  const { db, clock, events, logger } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_LOCK_TTL_MS;
  const pollMinMs = options.pollMinMs ?? 10;
  const pollMaxMs = options.pollMaxMs ?? 200;
  const random = options.random ?? Math.random;

  function backoff(attempt: number): number {
    const ceiling = Math.min(pollMaxMs, pollMinMs * 2 ** attempt);
    // Jitter in [ceiling/2, ceiling]: waiters from several processes do not poll in lockstep.
    return Math.max(1, Math.round(ceiling / 2 + (random() * ceiling) / 2));
  }

  /** Until when the lease is known to be ours: moved forward by each successful renewal. */
  interface LeaseState {
    validUntil: number;
    lost: boolean;
  }

  function startHeartbeat(subWorkspaceId: string, holder: string, state: LeaseState): () => void {
    const stop = new AbortController();
    void (async () => {
      while (!stop.signal.aborted) {
        try {
          await clock.sleep(Math.max(1, Math.floor(ttlMs / 3)), stop.signal);
        } catch {
          return; // stopped
        }
        try {
          const renewedAt = clock.now().getTime();
          const kept = await renewAllocationLock(db, { subWorkspaceId, holder, now: clock.now(), ttlMs });
          if (kept) state.validUntil = renewedAt + ttlMs;
          if (!kept) {
            state.lost = true;
            // Our lease expired and was taken over (a stall longer than the TTL). The section
            // finishes, but serialisation for it is no longer guaranteed: make that visible.
            logger.warn({ subWorkspaceId }, "allocation lock lease lost while held");
            return;
          }
        } catch (error) {
          logger.warn({ subWorkspaceId, err: error }, "allocation lock renewal failed");
        }
      }
    })();
    // An explicit reason: a bare abort() builds a DOMException with a stack trace on every
    // release, a measurable share of a lock section's CPU.
    return () => stop.abort(HEARTBEAT_STOPPED);
  }

  return {
    async acquire(subWorkspaceId: string, acquireOptions: AcquireOptions = {}): Promise<LockLease> {
      const holder = randomUUID();
      // An explicit short wait (a rebalancing try) is expected to fail now and then: not a warning.
      const explicit = acquireOptions.timeoutMs !== undefined;
      const timeoutMs =
        acquireOptions.timeoutMs ??
        durationMs("SERENITY_ALLOCATION_LOCK_TIMEOUT_MS", DEFAULT_LOCK_TIMEOUT_MS, options.env);
      const started = clock.now().getTime();
      const deadline = started + timeoutMs;
      for (let attempt = 0; ; attempt++) {
        const now = clock.now();
        if (await acquireAllocationLock(db, { subWorkspaceId, holder, now, ttlMs })) {
          events.emit("allocation.lockWait", {
            waitSeconds: (clock.now().getTime() - started) / 1000,
            acquired: true,
          });
          const state: LeaseState = { validUntil: now.getTime() + ttlMs, lost: false };
          const stopHeartbeat = startHeartbeat(subWorkspaceId, holder, state);
          return {
            held: () => !state.lost && clock.now().getTime() < state.validUntil,
            release: async () => {
              stopHeartbeat();
              try {
                await releaseAllocationLock(db, { subWorkspaceId, holder });
              } catch (error) {
                // The lease expires on its own within one TTL; the section's result stands.
                logger.warn({ subWorkspaceId, err: error }, "allocation lock release failed");
              }
            },
          };
        }
        const remaining = deadline - clock.now().getTime();
        if (remaining <= 0) {
          events.emit("allocation.lockWait", { waitSeconds: timeoutMs / 1000, acquired: false });
          if (explicit) logger.debug({ subWorkspaceId, timeoutMs }, "allocation lock busy");
          else logger.warn({ subWorkspaceId, timeoutMs }, "allocation lock wait timed out");
          throw new ServiceError("workspaceBusy", { details: { subWorkspaceId, reason: "lockTimeout" } });
        }
        await clock.sleep(Math.min(remaining, backoff(attempt)));
      }
    },
  };
}
