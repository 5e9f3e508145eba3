import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { orgs } from "../schema.ts";
import type { OrgRow } from "./orgRow.ts";

export async function findOrgById(db: DbExecutor, orgId: string): Promise<OrgRow | undefined> {
  const [row] = await db.select().from(orgs).where(eq(orgs.id, orgId)).limit(1);
  return row;
}
