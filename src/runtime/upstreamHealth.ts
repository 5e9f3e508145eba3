import type { Runtime } from "./runtime.ts";

/** How often an API process looks at the upstream for the `serenity_gateway_reachable` gauge. */
export const UPSTREAM_HEALTH_INTERVAL_MS = 30_000;

export interface UpstreamHealthOptions {
  intervalMs?: number;
  /**
   * The bearer the probe sends. Default: the operator's upstream bearer (SERENITY_UPSTREAM_TOKEN,
   * the one `serenity sweep` and `audit` use). `serenity start` passes its demo user's token, which
   * is what its built-in simulator knows. Users' sealed credentials are never used for it.
   */
  bearer?: string;
}

/**
 * Probes the gateway now and then every `intervalMs`, emitting `gateway.health` (the metric and the
 * log, never /readyz: readiness is the database and migrations, so an upstream outage leaves the
 * API in rotation to answer its cached reads and 503s). A change of state is logged once.
 *
 * Every call to Semrush carries a bearer, the probe's too (live answers 401 to any call without
 * one, spec/gateway.md §8). With no bearer to send, nothing is probed: the health stays unknown
 * (`reachable: null` on `GET /v2/serenity/upstream-health`, no gauge sample) and one line says why.
 * Returns a stop function; the timer never holds the process open.
 */
export function startUpstreamHealth(runtime: Runtime, options: UpstreamHealthOptions = {}): () => void {
  const bearer = options.bearer ?? runtime.config.upstreamToken;
  if (!bearer) {
    runtime.logger.warn(
      "the upstream-health probe is off: no upstream bearer to send (set SERENITY_UPSTREAM_TOKEN)",
    );
    return () => {};
  }
  let last: boolean | undefined;
  let running = false;
  const probe = async () => {
    if (running) return;
    running = true;
    try {
      const reachable = await runtime.gateway.reachable(bearer).catch(() => false);
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
  const timer = setInterval(() => void probe(), options.intervalMs ?? UPSTREAM_HEALTH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
