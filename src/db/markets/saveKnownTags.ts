import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { marketTags } from "../schema.ts";
import { knownTagRows } from "./knownTagRow.ts";

/** Remembers tag ids of a market's project (upserts by key: the latest resolution wins). */
export async function saveKnownTags(
  db: DbExecutor,
  values: { marketId: string; projectId: string; tags: ReadonlyMap<string, string>; knownAt: Date },
): Promise<void> {
  if (values.tags.size === 0) return;
  await db
    .insert(marketTags)
    .values(knownTagRows(values))
    .onConflictDoUpdate({
      target: [marketTags.marketId, marketTags.tagKey],
      set: {
        projectId: sql`excluded.project_id`,
        tagId: sql`excluded.tag_id`,
        knownAt: sql`excluded.known_at`,
      },
    });
}
