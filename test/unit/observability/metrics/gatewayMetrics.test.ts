import { describe, expect, it } from "vitest";

import { EventBus } from "../../../../src/observability/events.ts";
import { createMetrics } from "../../../../src/observability/metrics.ts";

describe("the gateway metrics", () => {
  it("time each upstream call under its endpoint group, so latency reads per group", async () => {
    const events = new EventBus();
    const { registry } = createMetrics(events);
    const call = { gateway: "pe", method: "POST", status: 201 } as const;
    events.emit("gateway.request", {
      ...call,
      group: "promptTracking",
      route: "/projects/:projectId/aio/prompts",
      durationSeconds: 0.2,
    });
    events.emit("gateway.request", {
      ...call,
      group: "projects",
      route: "/projects",
      durationSeconds: 3,
    });
    const text = await registry.metrics();
    expect(text).toMatch(
      /serenity_gateway_request_duration_seconds_count\{gateway="pe",group="promptTracking",route="\/projects\/:projectId\/aio\/prompts",status="201"\} 1/,
    );
    expect(text).toMatch(
      /serenity_gateway_request_duration_seconds_bucket\{le="2.5",gateway="pe",group="projects",route="\/projects",status="201"\} 0/,
    );
    // The request counter keeps its labels (the dashboard and rules read calls per group from
    // serenity_upstream_calls_total).
    expect(text).toContain('serenity_gateway_requests_total{gateway="pe",route="/projects",status="201"} 1');
  });
});
