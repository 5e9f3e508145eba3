import { asc, inArray } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { orgs } from "../schema.ts";
import type { OrgRow } from "./orgRow.ts";

/** Every org when `orgIds` is undefined (admins), else only those ids. */
export async function listOrgs(db: DbExecutor, orgIds: readonly string[] | undefined): Promise<OrgRow[]> {
  if (orgIds !== undefined && orgIds.length === 0) return [];
  const query = db.select().from(orgs);
  const filtered = orgIds === undefined ? query : query.where(inArray(orgs.id, [...orgIds]));
  return filtered.orderBy(asc(orgs.createdAt), asc(orgs.id));
}
