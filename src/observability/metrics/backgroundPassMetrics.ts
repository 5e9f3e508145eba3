import { Counter, Gauge, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/** Background passes that outgrew their period (the pool sampler's, the upstream reconciler's). */
export function registerBackgroundPassMetrics(registry: Registry, events: EventBus): void {
  const overruns = new Counter({
    name: "serenity_background_pass_overruns_total",
    help: "Background passes that took longer than their period, by pass (poolSampler, upstreamReconciler).",
    labelNames: ["pass"],
    registers: [registry],
  });
  const lastOverrun = new Gauge({
    name: "serenity_background_pass_overrun_seconds",
    help: "How long the last overrunning pass took, by pass: compare with its period to size it.",
    labelNames: ["pass"],
    registers: [registry],
  });
  events.on("background.passOverrun", ({ pass, durationSeconds }) => {
    overruns.inc({ pass });
    lastOverrun.set({ pass }, durationSeconds);
  });
}
