import { inArray } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { allocationPublishes } from "../schema.ts";

export interface LastPublish {
  publishedAt: Date;
  /**
   * What bounds the sub-workspace's real `used` from above right after this publish
   * (`used_before + moved`, docs/decisions/0030); absent when the publish had no basis.
   */
  usedBound?: Units;
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
      const known =
        row.projectsUsedBefore !== null &&
        row.promptsUsedBefore !== null &&
        row.projectsMoved !== null &&
        row.promptsMoved !== null;
      return [
        row.subWorkspaceId,
        {
          publishedAt: row.publishedAt,
          ...(known
            ? {
                usedBound: {
                  projects: row.projectsUsedBefore! + row.projectsMoved!,
                  prompts: row.promptsUsedBefore! + row.promptsMoved!,
                },
              }
            : {}),
        },
      ];
    }),
  );
}
