import { Counter, Histogram, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/** Prompt-generation metrics (docs/metrics.md), fed by `generation.call` events. */
export function registerGenerationMetrics(registry: Registry, events: EventBus): void {
  const duration = new Histogram({
    name: "serenity_generation_duration_seconds",
    help: "Prompt-generator call duration, validation included, by generator (builtin, drs, openai).",
    labelNames: ["generator"],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  const failures = new Counter({
    name: "serenity_generation_failures_total",
    help: "Genuine prompt-generator failures (transport, timeout, HTTP failure, unreadable answer, misconfiguration, terminal gate error, empty ship), by generator; never held, ship, a retryable gate error or an abort.",
    labelNames: ["generator"],
    registers: [registry],
  });

  events.on("generation.call", ({ generator, durationSeconds, genuineFailure }) => {
    duration.observe({ generator }, durationSeconds);
    if (genuineFailure) failures.inc({ generator });
  });
}
