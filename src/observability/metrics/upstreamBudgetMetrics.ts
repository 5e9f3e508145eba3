import { Counter, Gauge, Histogram, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/**
 * The upstream budget (docs/decisions/0019), per Semrush endpoint group only: an account label
 * would put a tenant's identity into every scrape.
 */
export function registerUpstreamBudgetMetrics(registry: Registry, events: EventBus): void {
  const calls = new Counter({
    name: "serenity_upstream_calls_total",
    help: "Upstream attempts sent, by Semrush endpoint group and status class.",
    labelNames: ["group", "status_class"],
    registers: [registry],
  });
  events.on("gateway.request", ({ group, status }) =>
    calls.inc({ group, status_class: status === 0 ? "network" : `${Math.floor(status / 100)}xx` }),
  );

  const waits = new Histogram({
    name: "serenity_upstream_budget_wait_seconds",
    help: "Time a call waited for an upstream budget slot, by group, priority and outcome (granted/exhausted).",
    labelNames: ["group", "priority", "outcome"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });
  events.on("upstream.budgetWait", ({ group, priority, outcome, seconds }) =>
    waits.observe({ group, priority, outcome }, seconds),
  );

  const throttled = new Counter({
    name: "serenity_upstream_throttled_total",
    help: "429 answers received from the upstream despite the budget (another client of the account), by group.",
    labelNames: ["group"],
    registers: [registry],
  });
  events.on("upstream.throttled", ({ group }) => throttled.inc({ group }));

  const busy = new Counter({
    name: "serenity_upstream_busy_total",
    help: "Calls that gave up for lack of upstream budget before their deadline (answered upstreamBusy), by group and priority.",
    labelNames: ["group", "priority"],
    registers: [registry],
  });
  events.on("upstream.busy", ({ group, priority }) => busy.inc({ group, priority }));

  const adaptive = new Gauge({
    name: "serenity_upstream_adaptive_slots",
    help: "Effective (adaptive) slots of the last account budget this process used, by group; below the configured limit after 429s.",
    labelNames: ["group"],
    registers: [registry],
  });
  events.on("upstream.adaptiveLimit", ({ group, slots }) => adaptive.set({ group }, slots));
}
