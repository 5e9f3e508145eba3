import { describe, expect, it } from "vitest";

import { reportOverrun } from "../../../src/observability/backgroundPassOverrun.ts";
import { EventBus, type ServiceEvents } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { LogCapture } from "../../support/logCapture.ts";

describe("reportOverrun", () => {
  it("logs one warning with the pass, its duration and its period, and emits the event behind the metric", () => {
    const logs = new LogCapture();
    const events = new EventBus();
    const seen: ServiceEvents["background.passOverrun"][] = [];
    events.on("background.passOverrun", (event) => seen.push(event));
    reportOverrun(
      { logger: createLogger({ level: "debug", destination: logs }), events },
      "upstreamReconciler",
      420_000,
      300_000,
    );
    expect(seen).toEqual([{ pass: "upstreamReconciler", durationSeconds: 420, budgetSeconds: 300 }]);
    const line = logs.lines
      .map((text) => JSON.parse(text) as { msg?: string })
      .find((entry) => entry.msg?.includes("took longer than its period"));
    expect(line).toMatchObject({
      level: 40,
      pass: "upstreamReconciler",
      durationMs: 420_000,
      periodMs: 300_000,
    });
  });
});
