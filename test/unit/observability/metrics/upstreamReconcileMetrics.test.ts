import { describe, expect, it } from "vitest";

import { EventBus } from "../../../../src/observability/events.ts";
import { createMetrics } from "../../../../src/observability/metrics.ts";

describe("upstream reconciler metrics", () => {
  it("keep an org's orphan series only while it has orphans, so a fleet of clean orgs adds none", async () => {
    const events = new EventBus();
    const { registry } = createMetrics(events);
    events.emit("upstream.orphansSeen", { orgId: "clean", subWorkspaces: 0, projects: 0, quarantined: 0 });
    events.emit("upstream.orphansSeen", { orgId: "messy", subWorkspaces: 2, projects: 0, quarantined: 1 });
    let text = await registry.metrics();
    expect(text).not.toContain('org="clean"');
    expect(text).toContain('serenity_upstream_orphans{org="messy",kind="subWorkspace"} 2');
    expect(text).not.toContain('serenity_upstream_orphans{org="messy",kind="project"}');
    expect(text).toContain('serenity_upstream_orphans_quarantined{org="messy"} 1');

    // Reclaimed: the org's series go away with its orphans.
    events.emit("upstream.orphansSeen", { orgId: "messy", subWorkspaces: 0, projects: 0, quarantined: 0 });
    text = await registry.metrics();
    expect(text).not.toContain('org="messy"');
  });
});
