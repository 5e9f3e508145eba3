import { and, asc, eq, lt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands } from "../schema.ts";

/** Brands whose attempt is `pending` and untouched since before `staleBefore` (oldest first). */
export async function findStaleProvisioningAttempts(
  db: DbExecutor,
  query: { staleBefore: Date; limit: number },
): Promise<{ brandId: string; attemptId: string }[]> {
  const rows = await db
    .select({ brandId: brands.id, attemptId: brands.provisioningAttemptId })
    .from(brands)
    .where(and(eq(brands.provisioningStatus, "pending"), lt(brands.updatedAt, query.staleBefore)))
    .orderBy(asc(brands.updatedAt))
    .limit(query.limit);
  return rows.filter((row): row is { brandId: string; attemptId: string } => row.attemptId !== null);
}
