import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands } from "../schema.ts";

/**
 * The aliases the upstream answered as rejected (`rejected_brand_aliases`) for the identity of
 * `identityVersion`: written only while that is still the brand's version (a newer identity's
 * propagation reports its own). Not the brand's `updated_at`: the caller changed nothing.
 */
export async function recordRejectedAliases(
  db: DbExecutor,
  input: { brandId: string; identityVersion: number; rejectedAliases: string[] },
): Promise<void> {
  await db
    .update(brands)
    .set({ rejectedAliases: input.rejectedAliases })
    .where(and(eq(brands.id, input.brandId), eq(brands.identityVersion, input.identityVersion)));
}
