import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { EventBus } from "../../../src/observability/events.ts";
import { createMetrics } from "../../../src/observability/metrics.ts";

describe("docs/metrics.md", () => {
  it("documents every registered metric", async () => {
    const documented = readFileSync("docs/metrics.md", "utf8");
    const { registry } = createMetrics(new EventBus());
    const registered = (await registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(registered.length).toBeGreaterThan(3);
    const undocumented = registered.filter((name) => !documented.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });
});
