import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { jobs } from "../schema.ts";
import type { JobRow } from "./jobRow.ts";

export async function findJob(db: DbExecutor, jobId: string): Promise<JobRow | undefined> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1);
  return row;
}
