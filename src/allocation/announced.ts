import type { DatabaseTime } from "../db/databaseTime.ts";
import type { AllocationDeps } from "./allocationDeps.ts";

/**
 * The one announce-and-hold rule, for the two kinds of upstream call that what others decide
 * meanwhile must not miss while they are on their way:
 * - a **model add** (modelSetChanges.ts, ADR 0030 addendum): a section working its need out
 *   meanwhile would count one model too few, so its publish is recorded without a basis;
 * - a **lowering** (poolFreeBounds.ts, ADR 0033): a call answered before the units arrived would
 *   teach a pool bound too low, so nothing is learned while one is in flight.
 *
 * Each is announced before it is sent — not best effort: unannounced, it is not sent, and the
 * caller's call fails — and its end is written after it is answered, whatever the answer — best
 * effort: an end never written (a process that died) stops holding once `ANNOUNCEMENT_HOLD_MS` is
 * over on the database's clock.
 */

/** Longer than any guarded call's attempts, retries and waits. */
export const ANNOUNCEMENT_HOLD_MS = 120_000;

/** How long an announcement holds when its end is never written, from the time a test drives. */
export interface AnnouncementHold {
  now: DatabaseTime;
  holdMs: number;
}

export interface Announcement {
  /** What is announced, and the fields to find it by: the log line of an end that could not be written. */
  what: string;
  fields: Record<string, unknown>;
  begin(hold: AnnouncementHold): Promise<void>;
  end(): Promise<void>;
}

/** Runs `send` announced (above). */
export async function announced<T>(
  deps: Pick<AllocationDeps, "clock" | "logger">,
  announcement: Announcement,
  send: () => Promise<T>,
): Promise<T> {
  await announcement.begin({ now: deps.clock.databaseTime?.(), holdMs: ANNOUNCEMENT_HOLD_MS });
  try {
    return await send();
  } finally {
    await announcement
      .end()
      .catch((error: unknown) =>
        deps.logger.warn(
          { err: error, ...announcement.fields },
          `allocation: could not end the announcement of ${announcement.what}`,
        ),
      );
  }
}
