import { Counter, Gauge, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/** The upstream reconciler's metrics (docs/metrics.md), fed only by its events. */
export function registerUpstreamReconcileMetrics(registry: Registry, events: EventBus): void {
  const runs = new Counter({
    name: "serenity_upstream_reconcile_runs_total",
    help: "Per-org turns of the upstream reconciler by outcome: ran, skipped, noCredential, failed.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  events.on("upstream.reconcileRun", ({ outcome }) => runs.inc({ outcome }));

  const orphans = new Gauge({
    name: "serenity_upstream_orphans",
    help: "Orphans (Serenity-made upstream things no record tracks) an org still had after the last pass, by kind.",
    labelNames: ["org", "kind"],
    registers: [registry],
  });
  const quarantined = new Gauge({
    name: "serenity_upstream_orphans_quarantined",
    help: "Orphans an org holds in quarantine after the last pass: they hold prompts the reconciler could not re-attach, and are kept until an operator deletes them (serenity reconcile --delete).",
    labelNames: ["org"],
    registers: [registry],
  });
  // Only orgs that have orphans keep a series: an org back to none loses its own, so the series
  // grow with the orgs in trouble, not with the fleet (bench/fleet.ts measured 3 per org before).
  const setOrRemove = <Labels extends Record<string, string>>(
    gauge: Gauge<keyof Labels & string>,
    labels: Labels,
    value: number,
  ) => (value > 0 ? gauge.set(labels, value) : gauge.remove(labels));
  events.on("upstream.orphansSeen", ({ orgId, subWorkspaces, projects, quarantined: kept }) => {
    setOrRemove(orphans, { org: orgId, kind: "subWorkspace" }, subWorkspaces);
    setOrRemove(orphans, { org: orgId, kind: "project" }, projects);
    setOrRemove(quarantined, { org: orgId }, kept);
  });

  const reclaimed = new Counter({
    name: "serenity_upstream_orphans_reclaimed_total",
    help: "Orphans the upstream reconciler acted on, by kind and outcome: reclaimed, reattached (market row given back), quarantined (kept: holds prompts), failed.",
    labelNames: ["kind", "outcome"],
    registers: [registry],
  });
  events.on("upstream.orphanReclaimed", ({ kind, outcome }) => reclaimed.inc({ kind, outcome }));

  const identityRepaired = new Counter({
    name: "serenity_upstream_identity_repaired_total",
    help: "Markets whose brand names, benchmarks, CI competitors or brand URLs had drifted from their brand's identity, re-synced by the upstream reconciler (repaired) or not (failed: tried again next pass).",
    labelNames: ["outcome"],
    registers: [registry],
  });
  events.on("upstream.identityRepaired", ({ outcome }) => identityRepaired.inc({ outcome }));
}
