import { Counter, Gauge, Histogram, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

const REACHABLE = "serenity_gateway_reachable";

export function registerGatewayMetrics(registry: Registry, events: EventBus): void {
  const requests = new Counter({
    name: "serenity_gateway_requests_total",
    help: "Upstream gateway requests, by gateway (um/pe), route template and status.",
    labelNames: ["gateway", "route", "status"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "serenity_gateway_request_duration_seconds",
    help: "Upstream gateway request duration in seconds, by gateway, endpoint group, route template and status.",
    // `group` adds no series (each route belongs to one group); it lets a panel or an alert read
    // latency per endpoint group, the unit of Semrush's request limits.
    labelNames: ["gateway", "group", "route", "status"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });
  events.on("gateway.request", ({ gateway, group, route, status, durationSeconds }) => {
    requests.inc({ gateway, route, status: String(status) });
    duration.observe({ gateway, group, route, status: String(status) }, durationSeconds);
  });

  const quotaClassifications = new Counter({
    name: "serenity_gateway_metered_quota_classifications_total",
    help: "405 answers seen by the client, by whether they classified as a metered-quota rejection.",
    labelNames: ["matched"],
    registers: [registry],
  });
  events.on("gateway.quotaClassification", ({ matched }) =>
    quotaClassifications.inc({ matched: String(matched) }),
  );

  // Registered on the first probe's answer, not before: an unlabelled gauge would otherwise read 0
  // in every worker and every API without SERENITY_UPSTREAM_TOKEN, which never probe, and an alert
  // on "no process reaches the upstream" would fire for them. Absent means unknown.
  const reachable = new Gauge({
    name: REACHABLE,
    help: "1 when the last periodic probe of the upstream gateway from this API process got an answer, else 0 (not part of /readyz); absent until the first probe.",
    registers: [],
  });
  events.on("gateway.health", ({ reachable: answered }) => {
    if (!registry.getSingleMetric(REACHABLE)) registry.registerMetric(reachable);
    reachable.set(answered ? 1 : 0);
  });
}
