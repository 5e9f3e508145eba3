import { Counter, type Registry } from "prom-client";

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
}
