import type { DbExecutor } from "../database.ts";
import { promptDeletions } from "../schema.ts";

/** Who deleted which prompts of a market, in which request. */
export interface PromptDeletion {
  orgId: string;
  brandId: string;
  marketId: string;
  promptIds: readonly string[];
  actor: string;
  requestId: string | undefined;
}

/** Keeps who deleted which prompts of a market (one row per market per delete). */
export async function recordPromptDeletion(
  db: DbExecutor,
  values: PromptDeletion & { deletedAt: Date },
): Promise<void> {
  await db.insert(promptDeletions).values({
    orgId: values.orgId,
    brandId: values.brandId,
    marketId: values.marketId,
    promptIds: [...values.promptIds],
    actor: values.actor,
    requestId: values.requestId ?? null,
    deletedAt: values.deletedAt,
  });
}
