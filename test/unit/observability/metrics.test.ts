import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { EventBus } from "../../../src/observability/events.ts";
import { createMetrics } from "../../../src/observability/metrics.ts";

const documentation = readFileSync("docs/metrics.md", "utf8");
/** Everything before the "Planned" section documents metrics that must exist now. */
const current = documentation.split(/^## Planned/m)[0]!;

async function registeredNames(): Promise<string[]> {
  const events = new EventBus();
  const { registry } = createMetrics(events, {
    pool: () => ({ checkedOut: 0, idle: 0, waiting: 0, max: 1 }),
  });
  // Registered on the first upstream-health probe only (src/observability/metrics/gatewayMetrics.ts).
  events.emit("gateway.health", { reachable: true });
  return (await registry.getMetricsAsJSON()).map((metric) => metric.name);
}

describe("docs/metrics.md", () => {
  it("documents every registered metric", async () => {
    const registered = await registeredNames();
    expect(registered.length).toBeGreaterThan(3);
    expect(registered.filter((name) => !current.includes(`\`${name}\``))).toEqual([]);
  });

  it("documents nothing as current that is not registered", async () => {
    const registered = new Set(await registeredNames());
    const documented = [...current.matchAll(/`(serenity_[a-z_]+)`/g)].map((match) => match[1]!);
    expect(documented.length).toBeGreaterThan(3);
    expect(
      documented.filter((name) => !registered.has(name) && !name.startsWith("serenity_process_")),
    ).toEqual([]);
  });
});

describe("serenity_gateway_reachable", () => {
  it("is absent until a probe answers (workers and unprobed APIs never read 0), then 1 or 0", async () => {
    const events = new EventBus();
    const { registry } = createMetrics(events, {
      pool: () => ({ checkedOut: 0, idle: 0, waiting: 0, max: 1 }),
    });
    expect(await registry.metrics()).not.toContain("serenity_gateway_reachable");
    events.emit("gateway.health", { reachable: false });
    expect(await registry.metrics()).toMatch(/^serenity_gateway_reachable 0$/m);
    events.emit("gateway.health", { reachable: true });
    expect(await registry.metrics()).toMatch(/^serenity_gateway_reachable 1$/m);
  });
});

describe("the database pool's metrics", () => {
  it("read the pool at scrape time and count nested checkouts by whether they were refused", async () => {
    const events = new EventBus();
    let waiting = 0;
    const { registry } = createMetrics(events, {
      pool: () => ({ checkedOut: 7, idle: 3, waiting, max: 10 }),
    });
    waiting = 4;
    events.emit("db.nestedAcquire", { refused: true });
    const text = await registry.metrics();
    expect(text).toContain('serenity_db_pool_connections{state="checked_out"} 7');
    expect(text).toContain('serenity_db_pool_connections{state="max"} 10');
    expect(text).toContain("serenity_db_pool_waiters 4");
    expect(text).toContain('serenity_db_nested_acquires_total{refused="true"} 1');
  });
});

describe("the background passes' metrics", () => {
  it("count overrunning passes by pass and keep the last one's duration", async () => {
    const events = new EventBus();
    const { registry } = createMetrics(events);
    events.emit("background.passOverrun", { pass: "poolSampler", durationSeconds: 75, budgetSeconds: 60 });
    events.emit("background.passOverrun", { pass: "poolSampler", durationSeconds: 90, budgetSeconds: 60 });
    const text = await registry.metrics();
    expect(text).toContain('serenity_background_pass_overruns_total{pass="poolSampler"} 2');
    expect(text).toContain('serenity_background_pass_overrun_seconds{pass="poolSampler"} 90');
    expect(text).not.toContain('serenity_background_pass_overruns_total{pass="upstreamReconciler"}');
  });
});
