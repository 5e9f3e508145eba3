import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";

/**
 * Removes the market rows of a brand (deactivate: the projects behind them were deleted
 * upstream), optionally only those whose project lives in `workspaceId`. Returns how many went.
 */
export async function deleteMarketsOfBrand(
  db: DbExecutor,
  brandId: string,
  options: { workspaceId?: string } = {},
): Promise<number> {
  const rows = await db
    .delete(markets)
    .where(
      and(
        eq(markets.brandId, brandId),
        options.workspaceId === undefined ? undefined : eq(markets.workspaceId, options.workspaceId),
      ),
    )
    .returning({ id: markets.id });
  return rows.length;
}
