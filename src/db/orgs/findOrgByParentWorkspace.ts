import { asc, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { orgs } from "../schema.ts";
import type { OrgRow } from "./orgRow.ts";

/** The org whose pool is `parentWorkspaceId` (unique), e.g. the demo org of `serenity start`. */
export async function findOrgByParentWorkspace(
  db: DbExecutor,
  parentWorkspaceId: string,
): Promise<OrgRow | undefined> {
  const [row] = await db
    .select()
    .from(orgs)
    .where(eq(orgs.parentWorkspaceId, parentWorkspaceId))
    .orderBy(asc(orgs.createdAt))
    .limit(1);
  return row;
}
