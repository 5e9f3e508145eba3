import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { poolSampleRuns } from "../schema.ts";

/**
 * Ends an org's pool sample held by `holder`: drops the lease and stamps the finish (the next is
 * due a period later). `false` = the lease was lost meanwhile (it expired and someone took it).
 */
export async function finishPoolSampleRun(
  db: DbExecutor,
  values: { orgId: string; holder: string; now: DatabaseTime },
): Promise<boolean> {
  const rows = await db
    .update(poolSampleRuns)
    .set({ holder: null, leaseExpiresAt: null, lastFinishedAt: databaseNow(values.now) })
    .where(and(eq(poolSampleRuns.orgId, values.orgId), eq(poolSampleRuns.holder, values.holder)))
    .returning({ orgId: poolSampleRuns.orgId });
  return rows.length === 1;
}
