import { and, asc, exists, isNotNull, ne } from "drizzle-orm";
import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands, orgs } from "../schema.ts";
import type { OrgRow } from "./orgRow.ts";

/**
 * Orgs that have a pool (a parent workspace) and at least one brand that is not deleted: the orgs
 * the pool sampler reads (spec/allocation.md §8).
 */
export async function listOrgsWithBrands(db: DbExecutor): Promise<OrgRow[]> {
  return db
    .select()
    .from(orgs)
    .where(
      and(
        isNotNull(orgs.parentWorkspaceId),
        exists(
          db
            .select({ id: brands.id })
            .from(brands)
            .where(and(eq(brands.orgId, orgs.id), ne(brands.status, "deleted"))),
        ),
      ),
    )
    .orderBy(asc(orgs.createdAt), asc(orgs.id));
}
