import { statusOf } from "../../domain/errors.ts";
import type { BulkItemOutcome } from "../../prompts/bulkOutcome.ts";
import { retryAfterSecondsOfAll } from "../retryAfter.ts";

/**
 * Per-item statuses of a bulk create: 201 created, 200 existed, else the registry status of the
 * error. `retryAfter` (seconds) when a failed item is retryable after a wait (upstreamBusy, a busy
 * lease): the route sends it as `Retry-After`, so a client retries the failed items when it may.
 */
export function bulkPromptsView(outcomes: readonly BulkItemOutcome[]) {
  const items = outcomes.map((outcome) => {
    switch (outcome.outcome) {
      case "created":
        return { index: outcome.index, status: 201, id: outcome.id };
      case "existed":
        return { index: outcome.index, status: 200, id: outcome.id };
      case "failed":
        return {
          index: outcome.index,
          status: statusOf(outcome.code),
          error: { code: outcome.code, message: outcome.message },
        };
    }
  });
  // 201 only when every item was created; anything else is a multi-status answer.
  const status: 201 | 207 = items.every((item) => item.status === 201) ? 201 : 207;
  const retryAfter = retryAfterSecondsOfAll(
    outcomes.flatMap((outcome) => (outcome.outcome === "failed" ? [outcome.code] : [])),
  );
  return { status, body: { items }, retryAfter };
}
