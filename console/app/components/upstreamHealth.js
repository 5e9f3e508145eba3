// @ts-check
import { getUpstreamHealth } from "../endpoints.js";
import { formatTime } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";

/** The API probes the gateway every 30 s; looking more often would show nothing new. */
export const UPSTREAM_HEALTH_REFRESH_MS = 30_000;

/**
 * Whether Semrush answers, as the API process last probed it: a word in the header on every page,
 * and a note above the page while it does not answer (reads then show what Serenity last learned;
 * changes that need Semrush fail until it is back). One API call per 30 s while signed in.
 * @param {boolean} enabled
 */
export function useUpstreamHealth(enabled) {
  const live = useLive({ health: getUpstreamHealth }, [enabled], {
    intervalMs: UPSTREAM_HEALTH_REFRESH_MS,
    enabled,
  });
  const health = live.data.health;
  const state =
    health?.reachable === true ? "reachable" : health?.reachable === false ? "unreachable" : "unknown";
  const word = { reachable: "answers", unreachable: "does not answer", unknown: "not checked yet" }[state];
  const checked = health?.checkedAt ? `last checked ${formatTime(health.checkedAt)}` : "not checked yet";
  return {
    indicator: html`<span class=${`upstream upstream-${state}`} data-upstream=${state} title=${checked}>
      Semrush ${word}
    </span>`,
    note:
      state === "unreachable"
        ? html`<p class="note note-error upstream-note" role="status">
            Semrush does not answer (since ${formatTime(health?.since ?? null)}). Pages show what Serenity
            last learned; changes that need Semrush fail (serenityUpstreamError) until it answers again.
          </p>`
        : null,
  };
}
