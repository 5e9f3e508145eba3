import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketModels } from "../schema.ts";

/**
 * Remembers a market's model set as known at `knownAt` — unless a set known later is already
 * there: a read that started before a model change must not overwrite what the change saved.
 * `false` when a newer set won (nothing written).
 */
export async function saveKnownModels(
  db: DbExecutor,
  values: { marketId: string; projectId: string; modelIds: readonly string[]; knownAt: Date },
): Promise<boolean> {
  const rows = await db
    .insert(marketModels)
    .values({ ...values, modelIds: [...values.modelIds] })
    .onConflictDoUpdate({
      target: marketModels.marketId,
      set: {
        projectId: sql`excluded.project_id`,
        modelIds: sql`excluded.model_ids`,
        knownAt: sql`excluded.known_at`,
      },
      setWhere: sql`${marketModels.knownAt} < excluded.known_at`,
    })
    .returning({ marketId: marketModels.marketId });
  return rows.length > 0;
}
