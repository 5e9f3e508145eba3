import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { orgs } from "../schema.ts";
import type { OrgRow } from "./orgRow.ts";

export async function updateOrg(
  db: DbExecutor,
  orgId: string,
  changes: { name?: string; parentWorkspaceId?: string | null; now: Date },
): Promise<OrgRow | undefined> {
  const { now, ...fields } = changes;
  const [row] = await db
    .update(orgs)
    .set({ ...fields, updatedAt: now })
    .where(eq(orgs.id, orgId))
    .returning();
  return row;
}
