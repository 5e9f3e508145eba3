import { and, eq, exists, isNull, ne, or, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands, markets, orgs } from "../schema.ts";
import type { MarketRow } from "./marketRow.ts";

/**
 * `creating` → `ready` with its project, only while the brand still writes where the project was
 * made: the brand is `active` and its pointer is the market's workspace, or (a flat market, made in
 * the org's parent) the brand still has no sub-workspace. 0 rows = a lost race, for the caller to
 * undo its project: the reservation was reclaimed meanwhile, or a deactivate took the brand out of
 * `active` (it does so BEFORE it lists the projects to delete — write-then-read on both sides, so
 * either this mark fails or the deactivate's listing sees the project).
 */
export async function markMarketReady(
  db: DbExecutor,
  values: { id: string; projectId: string; now: DatabaseTime },
): Promise<MarketRow | undefined> {
  const brandStillWritesThere = db
    .select({ one: sql`1` })
    .from(brands)
    .innerJoin(orgs, eq(orgs.id, brands.orgId))
    .where(
      and(
        eq(brands.id, markets.brandId),
        or(
          and(eq(brands.status, "active"), eq(brands.subWorkspaceId, markets.workspaceId)),
          and(
            ne(brands.status, "deleted"),
            isNull(brands.subWorkspaceId),
            eq(orgs.parentWorkspaceId, markets.workspaceId),
          ),
        ),
      ),
    );
  const [row] = await db
    .update(markets)
    .set({ status: "ready", projectId: values.projectId, updatedAt: databaseNow(values.now) })
    .where(and(eq(markets.id, values.id), eq(markets.status, "creating"), exists(brandStillWritesThere)))
    .returning();
  return row;
}
