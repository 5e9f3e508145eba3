import { inArray } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { allocationPublishes } from "../schema.ts";

export interface LastPublish {
  publishedAt: Date;
  /**
   * At least the sub-workspace's real `used` right after this publish, and the units the publishes
   * of its window moved (docs/decisions/0030); absent when the publish had no basis.
   */
  bound?: { used: Units; movedInWindow: Units };
}

/** The last publish written into each of `subWorkspaceIds` (absent: none recorded). */
export async function findLastPublishes(
  db: DbExecutor,
  subWorkspaceIds: readonly string[],
): Promise<Map<string, LastPublish>> {
  if (subWorkspaceIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(allocationPublishes)
    .where(inArray(allocationPublishes.subWorkspaceId, [...subWorkspaceIds]));
  return new Map(
    rows.map((row) => {
      const values = [
        row.projectsUsedBound,
        row.promptsUsedBound,
        row.projectsMovedInWindow,
        row.promptsMovedInWindow,
      ];
      const bound = values.every((value) => value !== null)
        ? {
            used: { projects: row.projectsUsedBound!, prompts: row.promptsUsedBound! },
            movedInWindow: { projects: row.projectsMovedInWindow!, prompts: row.promptsMovedInWindow! },
          }
        : undefined;
      return [row.subWorkspaceId, { publishedAt: row.publishedAt, ...(bound ? { bound } : {}) }];
    }),
  );
}
