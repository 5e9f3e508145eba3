import { and, desc, eq, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

/**
 * The newest record of a requeue/chain lineage: the one that has not handed off (yet). A hand-off
 * inserts the successor and links it in one transaction, so a lineage has exactly one such record
 * at any moment; the ordering only breaks a tie that a consistent lineage never has.
 */
export async function findLineageTail(db: DbExecutor, rootJobId: string): Promise<JobRow | undefined> {
  const [row] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.rootJobId, rootJobId), isNull(jobs.nextJobId)))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(1);
  return row;
}
