import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { allocationPublishes } from "../schema.ts";

/** When a publish was last written into `subWorkspaceId`; undefined when none was recorded. */
export async function findLastPublish(db: DbExecutor, subWorkspaceId: string): Promise<Date | undefined> {
  const [row] = await db
    .select({ publishedAt: allocationPublishes.publishedAt })
    .from(allocationPublishes)
    .where(eq(allocationPublishes.subWorkspaceId, subWorkspaceId));
  return row?.publishedAt;
}
