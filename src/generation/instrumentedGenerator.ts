import { performance } from "node:perf_hooks";

import type { EventBus } from "../observability/events.ts";
import { isGenuineFailure } from "./generationOutcome.ts";
import { GeneratorError } from "./generatorError.ts";
import type { PromptGenerator } from "./promptGenerator.ts";

/**
 * Wraps a generator so that every call emits `generation.call` (duration, how it ended, whether
 * it was a genuine failure); metrics subscribe. The answer or the error passes through unchanged.
 */
export function instrumentGenerator(generator: PromptGenerator, events: EventBus): PromptGenerator {
  return {
    name: generator.name,
    async generate(request, options) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const response = await generator.generate(request, options);
        events.emit("generation.call", {
          generator: generator.name,
          durationSeconds: seconds(),
          outcome: response.ship_summary.verdict,
          genuineFailure: isGenuineFailure({ response }),
        });
        return response;
      } catch (error) {
        events.emit("generation.call", {
          generator: generator.name,
          durationSeconds: seconds(),
          outcome: "error",
          failureKind: error instanceof GeneratorError ? error.kind : "unexpected",
          genuineFailure: isGenuineFailure({ error }),
        });
        throw error;
      }
    },
  };
}
