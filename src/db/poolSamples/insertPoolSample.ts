import type { DbExecutor } from "../database.ts";
import { type PoolSampleDimension, poolSamples } from "../schema.ts";
import type { PoolSampleRow } from "./poolSampleRow.ts";

/** Appends one sample of an org's pool (its parent workspace) to the pool history. */
export async function insertPoolSample(
  db: DbExecutor,
  sample: { orgId: string; projects: PoolSampleDimension; prompts: PoolSampleDimension; sampledAt: Date },
): Promise<PoolSampleRow> {
  const [row] = await db.insert(poolSamples).values(sample).returning();
  return row!;
}
