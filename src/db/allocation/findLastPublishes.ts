import { inArray } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationPublishes } from "../schema.ts";

/** When a publish was last written into each of `subWorkspaceIds` (absent: none recorded). */
export async function findLastPublishes(
  db: DbExecutor,
  subWorkspaceIds: readonly string[],
): Promise<Map<string, Date>> {
  if (subWorkspaceIds.length === 0) return new Map();
  const rows = await db
    .select({
      subWorkspaceId: allocationPublishes.subWorkspaceId,
      publishedAt: allocationPublishes.publishedAt,
    })
    .from(allocationPublishes)
    .where(inArray(allocationPublishes.subWorkspaceId, [...subWorkspaceIds]));
  return new Map(rows.map((row) => [row.subWorkspaceId, row.publishedAt]));
}
