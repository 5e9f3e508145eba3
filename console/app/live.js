// @ts-check
// Live data: a page's data sets are loaded together, then refreshed every few seconds while the
// tab is visible; a hidden tab makes no calls, and becoming visible again refreshes at once.
import { useCallback, useEffect, useRef, useState } from "../vendor/hooks.js";

export const REFRESH_MS = 5_000;

/**
 * @template {Record<string, () => Promise<any>>} Loaders
 * @typedef {{
 *   data: { [K in keyof Loaders]?: Awaited<ReturnType<Loaders[K]>> },
 *   errors: { [K in keyof Loaders]?: unknown },
 *   loaded: boolean,
 *   updatedAt: Date | undefined,
 *   refresh: () => Promise<void>,
 * }} LiveState
 */

/**
 * One API call per data set per refresh: each loader is one call, and a data set that fails keeps
 * its last value and reports its error without blanking the others.
 * @template {Record<string, () => Promise<any>>} Loaders
 * @param {Loaders} loaders
 * @param {unknown[]} deps reload from scratch when these change
 * @param {{ intervalMs?: number, enabled?: boolean }} [options]
 * @returns {LiveState<Loaders>}
 */
export function useLive(loaders, deps, options = {}) {
  const intervalMs = options.intervalMs ?? REFRESH_MS;
  const enabled = options.enabled ?? true;
  const [state, setState] = useState(
    /** @type {Omit<LiveState<Loaders>, "refresh">} */ ({
      data: {},
      errors: {},
      loaded: false,
      updatedAt: undefined,
    }),
  );
  const loadersRef = useRef(loaders);
  loadersRef.current = loaders;
  const generation = useRef(0);
  const inFlight = useRef(/** @type {Promise<void> | null} */ (null));

  const refresh = useCallback(() => {
    if (inFlight.current) return inFlight.current;
    const mine = generation.current;
    const entries = Object.entries(loadersRef.current);
    const run = Promise.allSettled(entries.map(([, load]) => load())).then((outcomes) => {
      if (mine !== generation.current) return;
      setState((previous) => {
        /** @type {Record<string, unknown>} */
        const data = { ...previous.data };
        /** @type {Record<string, unknown>} */
        const errors = {};
        outcomes.forEach((outcome, index) => {
          const key = /** @type {string} */ (entries[index]?.[0]);
          if (outcome.status === "fulfilled") data[key] = outcome.value;
          else errors[key] = outcome.reason;
        });
        return /** @type {any} */ ({ data, errors, loaded: true, updatedAt: new Date() });
      });
    });
    inFlight.current = run.finally(() => {
      inFlight.current = null;
    });
    return inFlight.current;
  }, []);

  useEffect(() => {
    if (!enabled) return undefined;
    generation.current += 1;
    inFlight.current = null;
    setState({ data: {}, errors: {}, loaded: false, updatedAt: undefined });
    /** @type {ReturnType<typeof setInterval> | undefined} */
    let timer;
    const schedule = () => {
      clearInterval(timer);
      timer =
        document.visibilityState === "visible" ? setInterval(() => void refresh(), intervalMs) : undefined;
    };
    const onVisibility = () => {
      if (document.visibilityState === "visible") void refresh();
      schedule();
    };
    void refresh();
    schedule();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      generation.current += 1;
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [...deps, enabled]);

  return { ...state, refresh };
}
