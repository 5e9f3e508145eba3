import { describe, expect, it } from "vitest";

import { EventBus } from "../../../../src/observability/events.ts";
import { createMetrics } from "../../../../src/observability/metrics.ts";

describe("the job metrics", () => {
  it("count the NEEDS_REAUTH backlog's inflow by type, and no other failure in it", async () => {
    const events = new EventBus();
    const { registry } = createMetrics(events);
    const type = "generate-market-prompts";
    events.emit("job.finished", { type, outcome: "failed", code: "NEEDS_REAUTH" });
    events.emit("job.finished", { type, outcome: "failed", code: "NEEDS_REAUTH" });
    events.emit("job.finished", { type, outcome: "failed", code: "PROMPT_GENERATION_HELD" });
    // A delivery that lost its lease did not record the failure: the job is not in the backlog.
    events.emit("job.finished", { type, outcome: "lease_lost", code: "NEEDS_REAUTH" });
    events.emit("job.finished", { type: "provision-brand", outcome: "completed" });
    const text = await registry.metrics();
    expect(text).toContain(`serenity_jobs_needs_reauth_total{type="${type}"} 2`);
    expect(text).not.toContain('serenity_jobs_needs_reauth_total{type="provision-brand"}');
    expect(text).toContain(`serenity_jobs_total{type="${type}",outcome="failed"} 3`);
  });
});
