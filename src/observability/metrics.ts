import { collectDefaultMetrics, Registry } from "prom-client";

import { DEFAULT_IDLE_ORG_AFTER_MS } from "../config/env.ts";
import type { EventBus } from "./events.ts";
import { registerAllocationMetrics, type SeriesFreshness } from "./metrics/allocationMetrics.ts";
import { registerBackgroundPassMetrics } from "./metrics/backgroundPassMetrics.ts";
import { type PoolStatsSource, registerDatabaseMetrics } from "./metrics/databaseMetrics.ts";
import { registerGatewayMetrics } from "./metrics/gatewayMetrics.ts";
import { registerGenerationMetrics } from "./metrics/generationMetrics.ts";
import { registerHttpMetrics } from "./metrics/httpMetrics.ts";
import { registerJobMetrics } from "./metrics/jobMetrics.ts";
import { registerProvisioningMetrics } from "./metrics/provisioningMetrics.ts";
import { registerUpstreamBudgetMetrics } from "./metrics/upstreamBudgetMetrics.ts";
import { registerUpstreamReconcileMetrics } from "./metrics/upstreamReconcileMetrics.ts";

/**
 * The metrics registry (names are a contract: docs/metrics.md). One registry per runtime, so
 * several apps in one test process never collide. Metrics are fed only by event subscriptions:
 * each subsystem has one `register…Metrics` module under metrics/.
 */
export interface Metrics {
  registry: Registry;
}

/** Without a runtime's settings: the default idle period, on the process's steady clock. */
const FRESH_FOR_AN_HOUR: SeriesFreshness = {
  freshForMs: DEFAULT_IDLE_ORG_AFTER_MS,
  now: () => performance.now(),
};

export function createMetrics(
  events: EventBus,
  options: { defaultMetrics?: boolean; pool?: PoolStatsSource; orgSeries?: SeriesFreshness } = {},
): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: "serenity_process_" });
  registerUpstreamBudgetMetrics(registry, events);
  registerHttpMetrics(registry, events);
  registerGatewayMetrics(registry, events);
  registerAllocationMetrics(registry, events, options.orgSeries ?? FRESH_FOR_AN_HOUR);
  registerJobMetrics(registry, events);
  registerProvisioningMetrics(registry, events);
  registerGenerationMetrics(registry, events);
  registerUpstreamReconcileMetrics(registry, events);
  registerDatabaseMetrics(registry, events, options.pool);
  registerBackgroundPassMetrics(registry, events);
  return { registry };
}
