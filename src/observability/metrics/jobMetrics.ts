import { Counter, Gauge, Histogram, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/** Job metrics of spec/operations.md §3, fed by the runner's and the reconciler's events. */
export function registerJobMetrics(registry: Registry, events: EventBus): void {
  const total = new Counter({
    name: "serenity_jobs_total",
    help: "Job deliveries by internal type and outcome (completed, failed, retried, requeued, dropped_duplicate, lease_lost).",
    labelNames: ["type", "outcome"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "serenity_job_duration_seconds",
    help: "Time from lease claim to the recorded outcome of a delivery, by internal type.",
    labelNames: ["type"],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const lag = new Histogram({
    name: "serenity_job_queue_lag_seconds",
    help: "Time a job message waited between becoming deliverable and reaching a worker, by internal type.",
    labelNames: ["type"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const stuck = new Gauge({
    name: "serenity_jobs_stuck",
    help: "IN_PROGRESS jobs past their deadline with no delivery pending, found by the last reconciler run in this process.",
    labelNames: ["type"],
    registers: [registry],
  });

  const needsReauth = new Counter({
    name: "serenity_jobs_needs_reauth_total",
    help: "Jobs that ended FAILED with NEEDS_REAUTH (kept with their checkpoints until their user signs in again), by internal type.",
    labelNames: ["type"],
    registers: [registry],
  });

  events.on("job.finished", ({ type, outcome, code, durationSeconds }) => {
    total.inc({ type, outcome });
    if (outcome === "failed" && code === "NEEDS_REAUTH") needsReauth.inc({ type });
    if (durationSeconds !== undefined) duration.observe({ type }, durationSeconds);
  });
  events.on("job.delivered", ({ type, lagSeconds }) => lag.observe({ type }, lagSeconds));
  events.on("job.reconciled", (report) => {
    stuck.reset();
    for (const [type, count] of Object.entries(report.stuck)) stuck.set({ type }, count);
  });
}
