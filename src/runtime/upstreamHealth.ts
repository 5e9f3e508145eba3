import type { Runtime } from "./runtime.ts";

/** How often an API process looks at the upstream for the `serenity_gateway_reachable` gauge. */
export const UPSTREAM_HEALTH_INTERVAL_MS = 30_000;

/**
 * Probes the gateway now and then every `intervalMs`, emitting `gateway.health` (the metric and the
 * log, never /readyz: readiness is the database and migrations, so an upstream outage leaves the
 * API in rotation to answer its cached reads and 503s). A change of state is logged once.
 * Returns a stop function; the timer never holds the process open.
 */
export function startUpstreamHealth(runtime: Runtime, intervalMs = UPSTREAM_HEALTH_INTERVAL_MS): () => void {
  let last: boolean | undefined;
  let running = false;
  const probe = async () => {
    if (running) return;
    running = true;
    try {
      const reachable = await runtime.gateway.reachable().catch(() => false);
      runtime.events.emit("gateway.health", { reachable });
      if (last !== undefined && reachable !== last) {
        if (reachable) runtime.logger.info("the upstream gateway answers again");
        else runtime.logger.warn("the upstream gateway does not answer (the API stays ready)");
      }
      last = reachable;
    } finally {
      running = false;
    }
  };
  void probe();
  const timer = setInterval(() => void probe(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
