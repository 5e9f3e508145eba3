import type { TokenVerifier } from "../auth/tokenVerifier.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { Services } from "../runtime/services.ts";

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, boolean>;
}

/** Everything the HTTP layer needs: services to call, and the edge's own adapters. */
export interface AppDeps {
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  verifier: TokenVerifier;
  services: Services;
  readiness: () => Promise<ReadinessReport>;
}
