import type { DbExecutor } from "../db/database.ts";
import { type PromptDeletion, recordPromptDeletion } from "../db/promptDeletions/recordPromptDeletion.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * Who deleted what, kept (spec/api.md §5): a `prompt_deletions` row and the structured
 * `promptsDeleted` log line, both after the delete and its publish succeeded upstream. The row's
 * write failing does not fail the request (the prompts are already gone upstream): the log line
 * still holds it, and the failure is logged as an error.
 */
export async function keepDeletion(
  deps: { db: DbExecutor; logger: Logger; now: Date },
  deletion: PromptDeletion,
): Promise<void> {
  deps.logger.info(
    {
      event: "promptsDeleted",
      actor: deletion.actor,
      marketId: deletion.marketId,
      promptIds: deletion.promptIds,
    },
    "prompts deleted",
  );
  try {
    await recordPromptDeletion(deps.db, { ...deletion, deletedAt: deps.now });
  } catch (error) {
    deps.logger.error({ err: error, marketId: deletion.marketId }, "could not record a prompt deletion");
  }
}
