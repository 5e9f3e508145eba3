import type { DbExecutor } from "../database.ts";
import { orgs } from "../schema.ts";
import type { OrgRow } from "./orgRow.ts";

export async function insertOrg(
  db: DbExecutor,
  values: { name: string; parentWorkspaceId: string | null; externalId?: string | null; now: Date },
): Promise<OrgRow> {
  const [row] = await db
    .insert(orgs)
    .values({
      name: values.name,
      parentWorkspaceId: values.parentWorkspaceId,
      externalId: values.externalId ?? null,
      createdAt: values.now,
      updatedAt: values.now,
    })
    .returning();
  return row!;
}
