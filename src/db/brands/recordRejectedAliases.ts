import { and, eq, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands } from "../schema.ts";

/**
 * Adds the aliases a market's upstream answered as rejected (`rejected_brand_aliases`) to the
 * brand's, for the identity of `identityVersion`: written only while that is still the brand's
 * version (a newer identity starts from none and its propagation reports its own). Not the
 * brand's `updated_at`: the caller changed nothing.
 */
export async function recordRejectedAliases(
  db: DbExecutor,
  input: { brandId: string; identityVersion: number; rejectedAliases: string[] },
): Promise<void> {
  if (input.rejectedAliases.length === 0) return;
  await db
    .update(brands)
    .set({
      // The list travels as one JSON parameter (a bound JS array would be spread into several).
      rejectedAliases: sql`array(select distinct alias from unnest(${brands.rejectedAliases} || array(select jsonb_array_elements_text(${JSON.stringify(input.rejectedAliases)}::jsonb))) as alias order by 1)`,
    })
    .where(and(eq(brands.id, input.brandId), eq(brands.identityVersion, input.identityVersion)));
}
