import { and, inArray, lt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { jobs } from "../schema.ts";

/** Deletes COMPLETED and FAILED records last changed before `before`. Returns how many. */
export async function purgeTerminalJobs(db: DbExecutor, before: Date): Promise<number> {
  const rows = await db
    .delete(jobs)
    .where(and(inArray(jobs.status, ["COMPLETED", "FAILED"]), lt(jobs.updatedAt, before)))
    .returning({ id: jobs.id });
  return rows.length;
}
