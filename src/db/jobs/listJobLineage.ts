import { asc, eq, or } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

/** A lineage's records (the root and every requeue/chain successor), oldest first, at most `limit`. */
export async function listJobLineage(
  db: DbExecutor,
  query: { rootJobId: string; limit: number },
): Promise<JobRow[]> {
  return db
    .select()
    .from(jobs)
    .where(or(eq(jobs.id, query.rootJobId), eq(jobs.rootJobId, query.rootJobId)))
    .orderBy(asc(jobs.createdAt), asc(jobs.id))
    .limit(query.limit);
}
