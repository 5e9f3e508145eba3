import { Counter, Gauge, Histogram, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/** How long an org's pool reading stays exported: the idle period, on a steady clock. */
export interface SeriesFreshness {
  freshForMs: number;
  now(): number;
}

/** Allocation metrics of spec/operations.md §3, fed only by allocation events. */
export function registerAllocationMetrics(
  registry: Registry,
  events: EventBus,
  freshness: SeriesFreshness,
): void {
  const headroomChecks = new Counter({
    name: "serenity_allocation_headroom_checks_total",
    help: "Guard headroom checks by outcome: hot_path (no transfer) or topped_up.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  events.on("allocation.headroomCheck", ({ outcome }) => headroomChecks.inc({ outcome }));

  const topUpDuration = new Histogram({
    name: "serenity_allocation_topup_duration_seconds",
    help: "Duration of a successful top-up (read, plan, transfer) by path: fail_fast or settle.",
    labelNames: ["path"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  events.on("allocation.topUp", ({ path, durationSeconds }) =>
    topUpDuration.observe({ path }, durationSeconds),
  );

  // A reading lives as long as the org is watched: a series not set for `freshForMs` (an org gone
  // idle, which the sampler no longer reads, or one viewed once by this process) is dropped at the
  // next scrape, so the series follow the active orgs, not every org ever sampled (issue 42).
  const lastSetAt = new Map<string, { org: string; dimension: string; at: number }>();
  const poolFreeRatio: Gauge<"org" | "dimension"> = new Gauge({
    name: "serenity_allocation_pool_free_ratio",
    help: "Free share of an org's pool per dimension (free / total), from the pool sampler; an org not read for the idle period has no series.",
    labelNames: ["org", "dimension"],
    registers: [registry],
    collect: () => {
      const now = freshness.now();
      for (const [key, { org, dimension, at }] of lastSetAt) {
        if (now - at < freshness.freshForMs) continue;
        poolFreeRatio.remove({ org, dimension });
        lastSetAt.delete(key);
      }
    },
  });
  events.on("allocation.poolSampled", ({ orgId, dimension, freeRatio }) => {
    poolFreeRatio.set({ org: orgId, dimension }, freeRatio);
    lastSetAt.set(`${orgId}\u0000${dimension}`, { org: orgId, dimension, at: freshness.now() });
  });

  const rejections = new Counter({
    name: "serenity_allocation_rejections_total",
    help: "Guarded writes rejected by allocation, by reason.",
    labelNames: ["reason"],
    registers: [registry],
  });
  events.on("allocation.rejection", ({ reason }) => rejections.inc({ reason }));

  const notReadyRetries = new Counter({
    name: "serenity_allocation_not_ready_retries_total",
    help: "Settle-path transfers retried after a 'workspace not ready' answer.",
    registers: [registry],
  });
  events.on("allocation.notReadyRetry", () => notReadyRetries.inc());

  const releases = new Counter({
    name: "serenity_allocation_releases_total",
    help: "Surplus releases by outcome.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  events.on("allocation.release", ({ outcome }) => releases.inc({ outcome }));

  const quotaRetries = new Counter({
    name: "serenity_allocation_quota_retries_total",
    help: "retryOnQuota runs after a metered-quota 405, by outcome and call site.",
    labelNames: ["outcome", "call_site"],
    registers: [registry],
  });
  events.on("allocation.quotaRetry", ({ outcome, callSite }) =>
    quotaRetries.inc({ outcome, call_site: callSite }),
  );

  const nearExhaustion = new Counter({
    name: "serenity_allocation_near_exhaustion_total",
    help: "Top-ups the pool refused block-rounded, retried exact or after rebalancing, by step and outcome.",
    labelNames: ["step", "outcome"],
    registers: [registry],
  });
  events.on("allocation.nearExhaustion", ({ step, outcome }) => nearExhaustion.inc({ step, outcome }));

  const topUpsNotSent = new Counter({
    name: "serenity_allocation_topups_not_sent_total",
    help: "Top-up attempts not sent because the org's pool was known not to cover them, by step.",
    labelNames: ["step"],
    registers: [registry],
  });
  events.on("allocation.topUpNotSent", ({ step }) => topUpsNotSent.inc({ step }));

  const rebalanceSiblings = new Counter({
    name: "serenity_allocation_rebalance_siblings_total",
    help: "Sibling sub-workspaces considered by rebalancing, by outcome.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const reclaimedUnits = new Counter({
    name: "serenity_allocation_reclaimed_units_total",
    help: "Units rebalancing moved from sibling sub-workspaces back to the pool, by dimension.",
    labelNames: ["dimension"],
    registers: [registry],
  });
  events.on("allocation.rebalanceSibling", ({ outcome, reclaimed }) => {
    rebalanceSiblings.inc({ outcome });
    for (const dimension of ["projects", "prompts"] as const) {
      if (reclaimed[dimension] > 0) reclaimedUnits.inc({ dimension }, reclaimed[dimension]);
    }
  });

  const recordWrites = new Counter({
    name: "serenity_allocation_record_writes_total",
    help: "Writes to the resources record by source (read, transfer, staged) and outcome (recorded, older, failed).",
    labelNames: ["source", "outcome"],
    registers: [registry],
  });
  events.on("allocation.recordWrite", ({ source, outcome }) => recordWrites.inc({ source, outcome }));

  const poolViewAge = new Histogram({
    name: "serenity_pool_view_oldest_entry_age_seconds",
    help: "Age of the oldest resources-record entry a pool view answered with.",
    buckets: [1, 5, 15, 30, 60, 120, 300, 900, 3600],
    registers: [registry],
  });
  const poolViewReads = new Counter({
    name: "serenity_pool_view_upstream_reads_total",
    help: "Upstream reads pool views waited for (entries the record had never seen).",
    registers: [registry],
  });
  const poolViewStale = new Counter({
    name: "serenity_pool_view_stale_entries_total",
    help: "Entries past SERENITY_POOL_VIEW_MAX_AGE_MS that pool views served and left to the background refresh.",
    registers: [registry],
  });
  events.on("allocation.poolViewServed", ({ oldestAgeSeconds, staleEntries, upstreamReads }) => {
    poolViewAge.observe(oldestAgeSeconds);
    if (upstreamReads > 0) poolViewReads.inc(upstreamReads);
    if (staleEntries > 0) poolViewStale.inc(staleEntries);
  });
  const poolViewRefreshes = new Counter({
    name: "serenity_pool_view_refreshes_total",
    help: "Entries the pool view's background refresh re-read, by outcome (refreshed, failed).",
    labelNames: ["outcome"],
    registers: [registry],
  });
  events.on("allocation.poolViewRefresh", ({ outcome }) => poolViewRefreshes.inc({ outcome }));

  const meteringReads = new Counter({
    name: "serenity_allocation_metering_reads_total",
    help: "Reads of an org's parent AI metering (limits_enabled), by reason and outcome (metered, unmetered, unknown, failed).",
    labelNames: ["reason", "outcome"],
    registers: [registry],
  });
  events.on("allocation.meteringRead", ({ reason, outcome }) => meteringReads.inc({ reason, outcome }));
  const meteringFlips = new Counter({
    name: "serenity_allocation_metering_flips_total",
    help: "Orgs whose parent's recorded AI metering changed, by the state it changed to.",
    labelNames: ["to"],
    registers: [registry],
  });
  events.on("allocation.meteringFlip", ({ to }) => meteringFlips.inc({ to }));

  const lockWait = new Histogram({
    name: "serenity_allocation_lock_wait_seconds",
    help: "Time spent waiting for a sub-workspace's allocation lock (timeouts included).",
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  events.on("allocation.lockWait", ({ waitSeconds }) => lockWait.observe(waitSeconds));
}
