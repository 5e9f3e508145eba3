import { desc, inArray } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { poolSamples } from "../schema.ts";
import type { PoolSampleRow } from "./insertPoolSample.ts";

/**
 * The newest sample of each of these orgs (orgs without a sample are absent), or of every org when
 * `orgIds` is undefined (an admin): `distinct on` over the (org, sampled_at) index.
 */
export async function latestPoolSamples(
  db: DbExecutor,
  orgIds: readonly string[] | undefined,
): Promise<PoolSampleRow[]> {
  if (orgIds !== undefined && orgIds.length === 0) return [];
  return db
    .selectDistinctOn([poolSamples.orgId])
    .from(poolSamples)
    .where(orgIds === undefined ? undefined : inArray(poolSamples.orgId, [...orgIds]))
    .orderBy(poolSamples.orgId, desc(poolSamples.sampledAt), desc(poolSamples.id));
}
