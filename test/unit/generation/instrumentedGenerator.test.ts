import { describe, expect, it } from "vitest";

import { GeneratorError } from "../../../src/generation/generatorError.ts";
import { instrumentGenerator } from "../../../src/generation/instrumentedGenerator.ts";
import type { PromptGenerator } from "../../../src/generation/promptGenerator.ts";
import type { GenerationResponse } from "../../../src/generation/wire.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createMetrics } from "../../../src/observability/metrics.ts";
import { DRS_CONTRACT, generationResponse } from "../../support/generationFixtures.ts";

const response = generationResponse;

describe("generation metrics", () => {
  it("observe every call's duration and count genuine failures only, per generator", async () => {
    const events = new EventBus();
    const { registry } = createMetrics(events);
    const answers: (GenerationResponse | GeneratorError)[] = [
      response({}),
      response({ verdict: "held" }),
      response({ verdict: "gate_error", error_category: "retryable" }),
      new GeneratorError("aborted", "x"),
      new GeneratorError("timeout", "x"),
      response({ verdict: "gate_error", error_category: "terminal" }),
    ];
    let index = 0;
    const fake: PromptGenerator = {
      name: "drs",
      async generate() {
        const answer = answers[index++]!;
        if (answer instanceof GeneratorError) throw answer;
        return answer;
      },
    };
    const generator = instrumentGenerator(fake, events);
    const calls: string[] = [];
    events.on("generation.call", (event) => calls.push(`${event.outcome}:${event.genuineFailure}`));
    for (let call = 0; call < answers.length; call += 1) {
      await generator.generate(DRS_CONTRACT.request).catch((error: unknown) => {
        expect(error).toBe(answers[call]);
      });
    }
    expect(calls).toEqual([
      "ship:false",
      "held:false",
      "gate_error:false",
      "error:false",
      "error:true",
      "gate_error:true",
    ]);
    const failures = await registry.getSingleMetric("serenity_generation_failures_total")!.get();
    expect(failures.values).toEqual([{ labels: { generator: "drs" }, value: 2 }]);
    const duration = await registry.getSingleMetric("serenity_generation_duration_seconds")!.get();
    const count = duration.values.find(
      (v) => (v as { metricName?: string }).metricName === "serenity_generation_duration_seconds_count",
    );
    expect(count).toMatchObject({ labels: { generator: "drs" }, value: 6 });
  });
});
