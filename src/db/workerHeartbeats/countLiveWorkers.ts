import { and, arrayContains, count, gte } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { workerHeartbeats } from "../schema.ts";

/** Workers that handle `jobType` and were seen at or after `seenSince` (generation's readiness gate). */
export async function countLiveWorkers(
  db: DbExecutor,
  query: { jobType: string; seenSince: Date },
): Promise<number> {
  const [row] = await db
    .select({ value: count() })
    .from(workerHeartbeats)
    .where(
      and(
        arrayContains(workerHeartbeats.jobTypes, [query.jobType]),
        gte(workerHeartbeats.seenAt, query.seenSince),
      ),
    );
  return row?.value ?? 0;
}
