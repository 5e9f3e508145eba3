import { describe, expect, it } from "vitest";

import { EventBus } from "../../../../src/observability/events.ts";
import { createMetrics } from "../../../../src/observability/metrics.ts";

describe("allocation metrics", () => {
  it("are fed by allocation events only", async () => {
    const events = new EventBus();
    const { registry } = createMetrics(events);
    events.emit("allocation.headroomCheck", { orgId: "o", outcome: "hot_path" });
    events.emit("allocation.headroomCheck", { orgId: "o", outcome: "topped_up" });
    events.emit("allocation.topUp", { orgId: "o", path: "fail_fast", durationSeconds: 0.02 });
    events.emit("allocation.poolSampled", { orgId: "o", dimension: "prompts", freeRatio: 0.25 });
    events.emit("allocation.rejection", { orgId: "o", reason: "orgPoolExhausted" });
    events.emit("allocation.notReadyRetry", { orgId: "o" });
    events.emit("allocation.release", { orgId: "o", outcome: "released" });
    events.emit("allocation.quotaRetry", { callSite: "promptCreate", outcome: "recovered" });
    events.emit("allocation.lockWait", { waitSeconds: 0.5, acquired: true });
    events.emit("allocation.nearExhaustion", { orgId: "o", step: "exact", outcome: "served" });
    events.emit("allocation.nearExhaustion", { orgId: "o", step: "rebalance", outcome: "refused" });
    events.emit("allocation.rebalanceSibling", {
      orgId: "o",
      outcome: "lowered",
      reclaimed: { projects: 1, prompts: 40 },
    });
    events.emit("allocation.rebalanceSibling", {
      orgId: "o",
      outcome: "busy",
      reclaimed: { projects: 0, prompts: 0 },
    });
    const text = await registry.metrics();
    expect(text).toContain('serenity_allocation_headroom_checks_total{outcome="hot_path"} 1');
    expect(text).toContain('serenity_allocation_headroom_checks_total{outcome="topped_up"} 1');
    expect(text).toContain('serenity_allocation_topup_duration_seconds_count{path="fail_fast"} 1');
    expect(text).toContain('serenity_allocation_pool_free_ratio{org="o",dimension="prompts"} 0.25');
    expect(text).toContain('serenity_allocation_rejections_total{reason="orgPoolExhausted"} 1');
    expect(text).toContain("serenity_allocation_not_ready_retries_total 1");
    expect(text).toContain('serenity_allocation_releases_total{outcome="released"} 1');
    expect(text).toContain(
      'serenity_allocation_quota_retries_total{outcome="recovered",call_site="promptCreate"} 1',
    );
    expect(text).toContain("serenity_allocation_lock_wait_seconds_count 1");
    expect(text).toContain('serenity_allocation_near_exhaustion_total{step="exact",outcome="served"} 1');
    expect(text).toContain('serenity_allocation_near_exhaustion_total{step="rebalance",outcome="refused"} 1');
    expect(text).toContain('serenity_allocation_rebalance_siblings_total{outcome="lowered"} 1');
    expect(text).toContain('serenity_allocation_rebalance_siblings_total{outcome="busy"} 1');
    expect(text).toContain('serenity_allocation_reclaimed_units_total{dimension="prompts"} 40');
    expect(text).toContain('serenity_allocation_reclaimed_units_total{dimension="projects"} 1');
  });

  it("keep an org's pool series only while it is read: one not set for the idle period is dropped at the next scrape", async () => {
    const events = new EventBus();
    let now = 0;
    const { registry } = createMetrics(events, { orgSeries: { freshForMs: 60_000, now: () => now } });
    const series = async () =>
      (await registry.metrics())
        .split("\n")
        .filter((line) => line.startsWith("serenity_allocation_pool_free_ratio{"));
    events.emit("allocation.poolSampled", { orgId: "quiet", dimension: "prompts", freeRatio: 0.5 });
    events.emit("allocation.poolSampled", { orgId: "quiet", dimension: "projects", freeRatio: 0.2 });
    now = 30_000;
    events.emit("allocation.poolSampled", { orgId: "busy", dimension: "prompts", freeRatio: 0.1 });
    expect(await series()).toHaveLength(3);
    now = 59_999;
    expect(await series()).toHaveLength(3);
    // A minute after its last read the quiet org's series go; the busy org read since keeps its own.
    now = 60_000;
    expect(await series()).toEqual([
      'serenity_allocation_pool_free_ratio{org="busy",dimension="prompts"} 0.1',
    ]);
    // Read again, it is back.
    events.emit("allocation.poolSampled", { orgId: "quiet", dimension: "prompts", freeRatio: 0.4 });
    expect(await series()).toContain(
      'serenity_allocation_pool_free_ratio{org="quiet",dimension="prompts"} 0.4',
    );
    now = 90_000;
    expect(await series()).toEqual([
      'serenity_allocation_pool_free_ratio{org="quiet",dimension="prompts"} 0.4',
    ]);
  });
});
