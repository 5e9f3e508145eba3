import { and, asc, eq, inArray, isNotNull, ne } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands, orgs } from "../schema.ts";

/** A brand's carved sub-workspace together with the pool (the org's parent) it draws from. */
export interface BrandSubWorkspaceRow {
  orgId: string;
  parentWorkspaceId: string;
  brandId: string;
  brandName: string;
  subWorkspaceId: string;
}

/**
 * Every brand that is not deleted and has a canonical sub-workspace in an org with a pool, in a
 * stable order (org, then brand creation) so a checkpointed run resumes over the same sequence.
 * `orgIds` / `brandIds` narrow the list when given (an empty list matches nothing).
 */
export async function listBrandSubWorkspaces(
  db: DbExecutor,
  filter: { orgIds?: readonly string[]; brandIds?: readonly string[] } = {},
): Promise<BrandSubWorkspaceRow[]> {
  if (filter.orgIds?.length === 0 || filter.brandIds?.length === 0) return [];
  const rows = await db
    .select({
      orgId: orgs.id,
      parentWorkspaceId: orgs.parentWorkspaceId,
      brandId: brands.id,
      brandName: brands.name,
      subWorkspaceId: brands.subWorkspaceId,
    })
    .from(brands)
    .innerJoin(orgs, eq(orgs.id, brands.orgId))
    .where(
      and(
        isNotNull(brands.subWorkspaceId),
        ne(brands.status, "deleted"),
        isNotNull(orgs.parentWorkspaceId),
        filter.orgIds ? inArray(orgs.id, [...filter.orgIds]) : undefined,
        filter.brandIds ? inArray(brands.id, [...filter.brandIds]) : undefined,
      ),
    )
    .orderBy(asc(orgs.createdAt), asc(orgs.id), asc(brands.createdAt), asc(brands.id));
  // The WHERE clause guarantees both ids; the select's types do not know it.
  return rows.map((row) => ({
    ...row,
    parentWorkspaceId: row.parentWorkspaceId!,
    subWorkspaceId: row.subWorkspaceId!,
  }));
}
