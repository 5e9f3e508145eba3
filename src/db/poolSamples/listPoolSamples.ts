import { and, desc, eq, gte } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { poolSamples } from "../schema.ts";
import type { PoolSampleRow } from "./poolSampleRow.ts";

/** The newest `limit` samples of an org's pool taken at or after `since`, newest first. */
export async function listPoolSamples(
  db: DbExecutor,
  query: { orgId: string; since: Date; limit: number },
): Promise<PoolSampleRow[]> {
  return db
    .select()
    .from(poolSamples)
    .where(and(eq(poolSamples.orgId, query.orgId), gte(poolSamples.sampledAt, query.since)))
    .orderBy(desc(poolSamples.sampledAt), desc(poolSamples.id))
    .limit(query.limit);
}
