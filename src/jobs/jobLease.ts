import { durationMs, type FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import { renewJobLease } from "../db/jobs/renewJobLease.ts";
import { type Clock, monotonicMsOf } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";
import type { AnyJobHandler } from "./handler.ts";

/**
 * A job delivery's lease while its handler runs (docs/decisions/0023). The claim sets it to
 * `db_now + ttl`; a heartbeat renews it, so a live handler never loses it and a dead or cut-off one
 * loses it within one TTL.
 *
 * The **renewal interval** is a third of the TTL. A successful renewal lets the holder start
 * upstream writes for one renewal interval, measured on its own monotonic clock from the moment it
 * sent that renewal (the database stamped the new expiry later, on its clock, so the holder's view
 * ends first). The heartbeat renews twice per interval, so one slow renewal does not stop a healthy
 * holder. A renewal that fails stops the holder's writes at once, until one succeeds again; one
 * that finds the lease gone (lapsed, taken over) stops them for good. A write started just before
 * the window closes has the rest of the TTL — two renewal intervals — to land before anyone may
 * claim the job.
 */
export interface JobLease {
  /** Whether the holder may still start an upstream write under this lease. */
  held(): boolean;
  /** Stops renewing; `held()` is false from then on (a handler still running is fenced out). */
  stop(): void;
}

/**
 * The TTL a delivery of `handler` claims and renews: SERENITY_JOB_LEASE_TTL_MS when set (how long
 * a cut-off worker's job waits before another worker may take it over), else the handler's own.
 */
export function jobLeaseTtlMs(handler: AnyJobHandler, env: FlagSource = process.env): number {
  return durationMs("SERENITY_JOB_LEASE_TTL_MS", handler.leaseTtlMs, env);
}

/** One renewal interval of a lease of `ttlMs`: how long a successful renewal lets the holder write. */
export function renewalIntervalMs(ttlMs: number): number {
  return Math.max(1, Math.floor(ttlMs / 3));
}

/** An explicit reason: a bare abort() builds a DOMException with a stack trace on every stop. */
const STOPPED = "job lease stopped";

/**
 * Starts renewing the lease just claimed. `claimedAt` is the holder's monotonic time from just
 * before it sent the claim.
 */
export function startJobLease(
  deps: { db: Db; clock: Clock; logger: Logger },
  lease: { jobId: string; leaseToken: string; ttlMs: number; claimedAt: number },
): JobLease {
  const { db, clock } = deps;
  const { jobId, leaseToken, ttlMs } = lease;
  return renewedLease(
    {
      clock,
      logger: deps.logger,
      renew: () => renewJobLease(db, { jobId, leaseToken, now: clock.databaseTime?.(), ttlMs }),
    },
    lease,
  );
}

/** The heartbeat and the holder's view of its lease, over any `renew` statement. */
export function renewedLease(
  deps: { clock: Clock; logger: Logger; renew: () => Promise<boolean> },
  lease: { jobId: string; ttlMs: number; claimedAt: number },
): JobLease {
  const { clock, logger } = deps;
  const intervalMs = renewalIntervalMs(lease.ttlMs);
  const monotonic = () => monotonicMsOf(clock);
  let renewedAt = lease.claimedAt;
  let failing = false;
  let gone = false;
  const stop = new AbortController();

  void (async () => {
    for (;;) {
      const wait = failing ? intervalMs / 4 : renewedAt + intervalMs / 2 - monotonic();
      try {
        await clock.sleep(Math.max(1, Math.floor(wait)), stop.signal);
      } catch {
        return; // stopped
      }
      const sentAt = monotonic();
      try {
        const renewed = await deps.renew();
        if (stop.signal.aborted) return;
        if (!renewed) {
          gone = true;
          logger.warn(
            { jobId: lease.jobId },
            "job lease lost while its handler ran: no further upstream writes",
          );
          return;
        }
        renewedAt = sentAt;
        failing = false;
      } catch (error) {
        if (stop.signal.aborted) return;
        // Unsure whether the lease still stands: no new write until a renewal succeeds (which
        // proves the lease was still live and still ours).
        if (!failing) logger.warn({ jobId: lease.jobId, err: error }, "job lease renewal failed");
        failing = true;
      }
    }
  })();

  return {
    held: () => !stop.signal.aborted && !gone && !failing && monotonic() < renewedAt + intervalMs,
    stop: () => stop.abort(STOPPED),
  };
}
