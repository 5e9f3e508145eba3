import { ERROR_REGISTRY, ServiceError } from "../domain/errors.ts";
import type { Logger } from "../observability/logger.ts";
import type { BulkItemOutcome } from "./bulkOutcome.ts";
import type { PreparedProjectPrompts } from "./projectPrompts.ts";

/** Every entry's outcome, duplicates included (not sorted). */
export function projectPromptOutcomes(prepared: PreparedProjectPrompts): BulkItemOutcome[] {
  const { primaries, outcomes, duplicates } = prepared;
  const results = [...primaries.values()].map((entry) => outcomes.get(entry.text)!);
  for (const duplicate of duplicates) {
    const first = outcomes.get(duplicate.text)!;
    results.push(
      first.outcome === "failed"
        ? { ...first, index: duplicate.index }
        : { index: duplicate.index, outcome: "existed", id: first.id },
    );
  }
  return results;
}

/** A failure as an item outcome: a registry code and sentence, never an upstream body. */
export function asFailure(
  error: unknown,
  log: Logger,
): { outcome: "failed"; code: ServiceError["code"]; message: string } {
  if (error instanceof ServiceError) return { outcome: "failed", code: error.code, message: error.message };
  log.error({ err: error }, "bulk prompt create failed unexpectedly");
  return {
    outcome: "failed",
    code: "internalServerError",
    message: ERROR_REGISTRY.internalServerError.message,
  };
}
