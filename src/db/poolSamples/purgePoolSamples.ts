import { and, eq, lt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { poolSamples } from "../schema.ts";

/** Deletes an org's samples taken before `before` (the retention); returns how many went. */
export async function purgePoolSamples(
  db: DbExecutor,
  query: { orgId: string; before: Date },
): Promise<number> {
  const rows = await db
    .delete(poolSamples)
    .where(and(eq(poolSamples.orgId, query.orgId), lt(poolSamples.sampledAt, query.before)))
    .returning({ id: poolSamples.id });
  return rows.length;
}
