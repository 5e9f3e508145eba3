import { Counter, Histogram, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/** Provisioning metrics of spec/operations.md §3, fed by `provisioning.attempt` events. */
export function registerProvisioningMetrics(registry: Registry, events: EventBus): void {
  const attempts = new Counter({
    name: "serenity_provisioning_attempts_total",
    help: "Sub-workspace provisioning attempts by outcome (ready, failed, superseded, cancelled, stale).",
    labelNames: ["outcome"],
    registers: [registry],
  });
  events.on("provisioning.attempt", ({ outcome }) => attempts.inc({ outcome }));

  // The per-brand lease of structural operations (docs/decisions/0015).
  const leaseWait = new Histogram({
    name: "serenity_brand_lease_wait_seconds",
    help: "Time spent waiting for a brand's lease before a structural operation, by outcome (acquired, busy).",
    labelNames: ["outcome"],
    buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  events.on("brand.leaseWait", ({ waitSeconds, acquired }) =>
    leaseWait.observe({ outcome: acquired ? "acquired" : "busy" }, waitSeconds),
  );

  const rollbacksPending = new Counter({
    name: "serenity_market_rollbacks_pending_total",
    help: "Failed market creates whose project could not be deleted; kept = its reservation still tracks it for a retry.",
    labelNames: ["kept"],
    registers: [registry],
  });
  events.on("market.rollbackPending", ({ kept }) => rollbacksPending.inc({ kept: String(kept) }));
}
