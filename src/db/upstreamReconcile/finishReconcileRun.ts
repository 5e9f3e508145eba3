import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { upstreamReconcileRuns } from "../schema.ts";

/**
 * Ends an org's reconcile run held by `holder`: drops the lease, stamps the finish (the next run
 * is due a period later) and what the run cost in upstream calls (an idle org's period follows
 * from it, docs/decisions/0042). `false` = the lease was lost meanwhile (it expired and someone
 * took it).
 */
export async function finishReconcileRun(
  db: DbExecutor,
  values: { orgId: string; holder: string; now: DatabaseTime; calls: number },
): Promise<boolean> {
  const rows = await db
    .update(upstreamReconcileRuns)
    .set({
      holder: null,
      leaseExpiresAt: null,
      lastFinishedAt: databaseNow(values.now),
      lastCalls: values.calls,
    })
    .where(
      and(eq(upstreamReconcileRuns.orgId, values.orgId), eq(upstreamReconcileRuns.holder, values.holder)),
    )
    .returning({ orgId: upstreamReconcileRuns.orgId });
  return rows.length === 1;
}
