import { randomUUID } from "node:crypto";

import type { DatabaseTime } from "../db/databaseTime.ts";
import { type Clock, monotonicMsOf } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";
import type { AcquireOptions, LockLease, LockProvider } from "./reentrantLock.ts";

/**
 * A lock made of lease rows in PostgreSQL, one row per key (the allocation lock per sub-workspace,
 * docs/decisions/0001; the brand lease per brand, docs/decisions/0015). Each statement is a short
 * autocommit query, so no transaction and no pooled connection is held while the lock is held or
 * waited for. A holder renews its lease on a heartbeat (every third of the TTL), so the TTL stays
 * short and a crashed holder's lock frees itself within one TTL. Waiters poll with jittered,
 * capped backoff through the injected clock, up to a bounded wait.
 *
 * Two clocks, never compared with each other (docs/decisions/0023): whether a row's lease has
 * expired — may it be taken over — is decided inside the statement on the database's clock; how
 * long the holder may still act is measured on the holder's own monotonic clock from the start of
 * its last successful renewal, which is never later than the database's stamp of it. A holder
 * whose renewal failed, or whose remaining time fell under `spareMs`, is no longer `held()`.
 */

/** What an acquire statement answers: whether it took the lease, and what it read besides. */
export interface AcquireAttempt {
  taken: boolean;
  state?: unknown;
}

/** The three guarded statements of a lease table (one src/db module each). */
export interface LeaseRows {
  /** `now`: only a test's hand-driven time; production passes undefined (the database's clock). */
  acquire(key: string, holder: string, now: DatabaseTime, ttlMs: number): Promise<boolean | AcquireAttempt>;
  renew(key: string, holder: string, now: DatabaseTime, ttlMs: number): Promise<boolean>;
  /** `note`: what the section asked its release to do besides (LockLease.release). */
  release(key: string, holder: string, note?: unknown): Promise<void>;
}

export interface LeaseRowLockOptions {
  clock: Clock;
  logger: Logger;
  rows: LeaseRows;
  ttlMs: number;
  /**
   * The remaining time under which the holder stops counting the lease as held (default 0): time
   * to spare for a write started just before it, so it lands before the lease can lapse.
   */
  spareMs?: number;
  /** First poll backoff and its cap. */
  pollMinMs?: number;
  pollMaxMs?: number;
  random?: () => number;
  /** Names in log lines: the key's field (`subWorkspaceId`, `brandId`) and the lock's name. */
  names: { keyField: string; lock: string };
  /** The wait when an acquire names none, read at each acquire (a setting may change). */
  defaultTimeoutMs(): number;
  /** Each acquire's outcome: how long it waited, and whether it got the lease. */
  onWait(waitSeconds: number, acquired: boolean): void;
  /** The error a wait that ran out throws; `explicit` = the caller named a (short) wait. */
  busy(key: string, timeoutMs: number, explicit: boolean): Error;
}

/** An explicit reason: a bare abort() builds a DOMException with a stack trace on every release. */
const HEARTBEAT_STOPPED = "heartbeat stopped";

export function createLeaseRowLock(options: LeaseRowLockOptions): LockProvider {
  const { clock, logger, rows, ttlMs, names } = options;
  const pollMinMs = options.pollMinMs ?? 10;
  const pollMaxMs = options.pollMaxMs ?? 200;
  const random = options.random ?? Math.random;

  function backoff(attempt: number): number {
    const ceiling = Math.min(pollMaxMs, pollMinMs * 2 ** attempt);
    // Jitter in [ceiling/2, ceiling]: waiters from several processes do not poll in lockstep.
    return Math.max(1, Math.round(ceiling / 2 + (random() * ceiling) / 2));
  }

  /**
   * Until when the lease is known to be ours, on the holder's monotonic clock: moved forward by
   * each successful renewal. `renewalFailing` while the last renewal could not reach the database.
   */
  interface LeaseState {
    validUntil: number;
    lost: boolean;
    renewalFailing: boolean;
  }
  const spareMs = options.spareMs ?? 0;
  const monotonic = () => monotonicMsOf(clock);

  function startHeartbeat(key: string, holder: string, state: LeaseState): () => void {
    const stop = new AbortController();
    void (async () => {
      while (!stop.signal.aborted) {
        try {
          await clock.sleep(Math.max(1, Math.floor(ttlMs / 3)), stop.signal);
        } catch {
          return; // stopped
        }
        try {
          const renewedAt = monotonic();
          if (await rows.renew(key, holder, clock.databaseTime?.(), ttlMs)) {
            state.validUntil = renewedAt + ttlMs;
            state.renewalFailing = false;
            continue;
          }
          // Our lease expired and was taken over (a stall longer than the TTL). The work finishes,
          // but serialisation for it is no longer guaranteed: make that visible.
          state.lost = true;
          logger.warn({ [names.keyField]: key }, `${names.lock} lost while held`);
          return;
        } catch (error) {
          // Unsure whether the lease still stands: no new write under it until a renewal succeeds
          // (which proves nobody took it over meanwhile: the row still names this holder).
          state.renewalFailing = true;
          logger.warn({ [names.keyField]: key, err: error }, `${names.lock} renewal failed`);
        }
      }
    })();
    return () => stop.abort(HEARTBEAT_STOPPED);
  }

  return {
    async acquire(key: string, acquireOptions: AcquireOptions = {}): Promise<LockLease> {
      const holder = randomUUID();
      const explicit = acquireOptions.timeoutMs !== undefined;
      const timeoutMs = acquireOptions.timeoutMs ?? options.defaultTimeoutMs();
      const started = clock.now().getTime();
      const deadline = started + timeoutMs;
      for (let attempt = 0; ; attempt++) {
        const acquiredAt = monotonic();
        const answer = await rows.acquire(key, holder, clock.databaseTime?.(), ttlMs);
        const answered: AcquireAttempt = typeof answer === "boolean" ? { taken: answer } : answer;
        if (attempt === 0) acquireOptions.onFirstAttempt?.(answered.state);
        if (answered.taken) {
          options.onWait((clock.now().getTime() - started) / 1000, true);
          const state: LeaseState = { validUntil: acquiredAt + ttlMs, lost: false, renewalFailing: false };
          const stopHeartbeat = startHeartbeat(key, holder, state);
          return {
            state: answered.state,
            held: () => !state.lost && !state.renewalFailing && monotonic() < state.validUntil - spareMs,
            release: async (note) => {
              stopHeartbeat();
              try {
                await rows.release(key, holder, note);
              } catch (error) {
                // The lease expires on its own within one TTL; the work's result stands.
                logger.warn({ [names.keyField]: key, err: error }, `${names.lock} release failed`);
              }
            },
          };
        }
        const remaining = deadline - clock.now().getTime();
        if (remaining <= 0) {
          options.onWait(timeoutMs / 1000, false);
          throw options.busy(key, timeoutMs, explicit);
        }
        await clock.sleep(Math.min(remaining, backoff(attempt)));
      }
    },
  };
}
