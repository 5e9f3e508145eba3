import { Counter, Histogram, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

export function registerHttpMetrics(registry: Registry, events: EventBus): void {
  const requests = new Counter({
    name: "serenity_http_requests_total",
    help: "HTTP requests served, by method, route template and status.",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "serenity_http_request_duration_seconds",
    help: "HTTP request duration in seconds, by method, route template and status.",
    labelNames: ["method", "route", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [registry],
  });
  const undeclared = new Counter({
    name: "serenity_http_undeclared_error_codes_total",
    help: "Error answers whose code the route's OpenAPI declaration does not list, by method, route template, status and code.",
    labelNames: ["method", "route", "status", "code"],
    registers: [registry],
  });
  events.on("http.undeclaredErrorCode", ({ method, route, status, code }) => {
    undeclared.inc({ method, route, status: String(status), code });
  });
  events.on("http.request", ({ method, route, status, durationSeconds }) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, durationSeconds);
  });
}
