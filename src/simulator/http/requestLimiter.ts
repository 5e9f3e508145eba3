import { createHash } from "node:crypto";

import type { EndpointGroup } from "../../domain/endpointGroup.ts";
import { StartWindow } from "./startWindow.ts";

/** `0` in either field means no limit on that dimension. */
export interface RateLimit {
  perSecond: number;
  concurrent: number;
}

/** What `/__sim/rate` reports for one (bearer, group) since the last clear. */
export interface RateReport {
  /** A short hash of the bearer (`bearerHash`), never the bearer itself. */
  bearer: string;
  group: EndpointGroup;
  /** Requests admitted (not throttled). */
  started: number;
  /** Requests answered 429 by the limit. */
  throttled: number;
  /** Most admitted requests started in any 1 s window. */
  perSecondPeak: number;
  /** Most admitted requests in flight at once. */
  inFlightPeak: number;
  /** Admitted requests in flight now. */
  inFlight: number;
}

/** Ends an admitted request's time in flight; calling it more than once changes nothing. */
export type Release = () => void;

interface KeyState {
  bearer: string;
  group: EndpointGroup;
  window: StartWindow;
  inFlight: number;
  started: number;
  throttled: number;
  perSecondPeak: number;
  inFlightPeak: number;
}

/**
 * The first 12 hex digits of the bearer's SHA-256: enough to tell a run's accounts apart in a
 * report, and the bearer never leaves the simulator. A benchmark computes the same hash of the
 * tokens it used to find its rows.
 */
export function bearerHash(bearer: string): string {
  return createHash("sha256").update(bearer).digest("hex").slice(0, 12);
}

/**
 * Semrush's request limits per (bearer, endpoint group), spec/gateway.md §7: a request is admitted
 * when fewer than `perSecond` admitted requests started in the 1 s window ending now AND fewer than
 * `concurrent` are in flight; otherwise it is throttled. A throttled request has no effect, so it
 * neither starts nor counts in the window (a client retrying in a tight loop is not locked out
 * longer for it; Semrush documents throttled calls as having no effect). Time is the caller's
 * `now`, so the rule is pure and tests move it by hand. The counts it keeps are the simulator's
 * own measure of what a client sent: peaks are tracked whether a limit is set or not.
 */
export class RequestLimiter {
  /** One entry per (bearer, group) seen since the last reset: bounded by the run's accounts × 3. */
  #keys = new Map<string, KeyState>();
  #since: number;

  /** `now`: when counting starts (the start of what the first report covers). */
  constructor(now: number) {
    this.#since = now;
  }

  /** When the counts of `report()` started: construction, the last clear or the last reset. */
  get since(): number {
    return this.#since;
  }

  /** Admits the request (returns its release) or throttles it (returns undefined). */
  tryStart(bearer: string, group: EndpointGroup, now: number, limit: RateLimit): Release | undefined {
    const state = this.#state(bearer, group);
    const inWindow = state.window.countAt(now);
    const overRate = limit.perSecond > 0 && inWindow >= limit.perSecond;
    const overConcurrency = limit.concurrent > 0 && state.inFlight >= limit.concurrent;
    if (overRate || overConcurrency) {
      state.throttled += 1;
      return undefined;
    }
    state.window.push(now);
    state.started += 1;
    state.inFlight += 1;
    state.perSecondPeak = Math.max(state.perSecondPeak, inWindow + 1);
    state.inFlightPeak = Math.max(state.inFlightPeak, state.inFlight);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.inFlight -= 1;
    };
  }

  /** Every key with something to report since the last clear, sorted by bearer hash and group. */
  report(): RateReport[] {
    return [...this.#keys.values()]
      .filter((state) => state.started > 0 || state.throttled > 0 || state.inFlight > 0)
      .map((state) => ({
        bearer: state.bearer,
        group: state.group,
        started: state.started,
        throttled: state.throttled,
        perSecondPeak: state.perSecondPeak,
        inFlightPeak: state.inFlightPeak,
        inFlight: state.inFlight,
      }))
      .sort((a, b) => a.bearer.localeCompare(b.bearer) || a.group.localeCompare(b.group));
  }

  /**
   * `DELETE /__sim/rate`: the counts and peaks start again from zero. The window and the requests
   * in flight are live state, not counts, and keep being enforced; a peak observed after the clear
   * may therefore include starts from just before it (the upstream's second does not restart).
   */
  clearCounts(now: number): void {
    this.#since = now;
    for (const state of this.#keys.values()) {
      state.started = 0;
      state.throttled = 0;
      state.perSecondPeak = 0;
      state.inFlightPeak = 0;
    }
  }

  /**
   * `POST /__sim/reset`: the counts and the windows go. Requests still in flight stay counted until
   * they are answered, so the concurrency limit stays true across a reset.
   */
  reset(now: number): void {
    this.clearCounts(now);
    for (const [key, state] of this.#keys) {
      state.window.clear();
      if (state.inFlight === 0) this.#keys.delete(key);
    }
  }

  #state(bearer: string, group: EndpointGroup): KeyState {
    // Keyed by the bearer itself (in memory only, like the token registry): hashing every request
    // cost more than the rest of the rule; the hash is taken once per key, for reports.
    const key = `${group} ${bearer}`;
    let state = this.#keys.get(key);
    if (!state) {
      state = {
        bearer: bearerHash(bearer),
        group,
        window: new StartWindow(),
        inFlight: 0,
        started: 0,
        throttled: 0,
        perSecondPeak: 0,
        inFlightPeak: 0,
      };
      this.#keys.set(key, state);
    }
    return state;
  }
}
