import { lt } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { workerHeartbeats } from "../schema.ts";

/** Forgets workers not seen since `before` (crashed ones never delete their own row). */
export async function purgeWorkerHeartbeats(db: DbExecutor, before: Date): Promise<number> {
  const rows = await db
    .delete(workerHeartbeats)
    .where(lt(workerHeartbeats.seenAt, before))
    .returning({ workerId: workerHeartbeats.workerId });
  return rows.length;
}
