import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { upstreamReconcileRuns } from "../schema.ts";

/**
 * Ends an org's reconcile run held by `holder`: drops the lease and stamps the finish (the next run
 * is due a period later). `false` = the lease was lost meanwhile (it expired and someone took it).
 */
export async function finishReconcileRun(
  db: DbExecutor,
  values: { orgId: string; holder: string; now: DatabaseTime },
): Promise<boolean> {
  const rows = await db
    .update(upstreamReconcileRuns)
    .set({ holder: null, leaseExpiresAt: null, lastFinishedAt: databaseNow(values.now) })
    .where(
      and(eq(upstreamReconcileRuns.orgId, values.orgId), eq(upstreamReconcileRuns.holder, values.holder)),
    )
    .returning({ orgId: upstreamReconcileRuns.orgId });
  return rows.length === 1;
}
