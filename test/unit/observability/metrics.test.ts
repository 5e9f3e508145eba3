import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { EventBus } from "../../../src/observability/events.ts";
import { createMetrics } from "../../../src/observability/metrics.ts";

const documentation = readFileSync("docs/metrics.md", "utf8");
/** Everything before the "Planned" section documents metrics that must exist now. */
const current = documentation.split(/^## Planned/m)[0]!;

async function registeredNames(): Promise<string[]> {
  const { registry } = createMetrics(new EventBus());
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
