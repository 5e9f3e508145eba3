import { and, isNull, lt, lte, or, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { upstreamReconcileRuns } from "../schema.ts";

/**
 * Takes an org's reconcile run in one statement: insert the org's row, or take it over when no
 * live lease holds it AND the last run finished at least `periodMs` ago. `false` = another process
 * is reconciling this org, or did so less than a period ago — a lost race, never an exception.
 * Both are judged on the database's clock (docs/decisions/0023).
 */
export async function claimReconcileRun(
  db: DbExecutor,
  values: { orgId: string; holder: string; now: DatabaseTime; leaseMs: number; periodMs: number },
): Promise<boolean> {
  const dueBefore = databaseNowPlus(values.now, -values.periodMs);
  const rows = await db
    .insert(upstreamReconcileRuns)
    .values({
      orgId: values.orgId,
      holder: values.holder,
      leaseExpiresAt: databaseNowPlus(values.now, values.leaseMs),
    })
    .onConflictDoUpdate({
      target: upstreamReconcileRuns.orgId,
      set: { holder: sql`excluded.holder`, leaseExpiresAt: sql`excluded.lease_expires_at` },
      setWhere: and(
        or(
          isNull(upstreamReconcileRuns.leaseExpiresAt),
          lt(upstreamReconcileRuns.leaseExpiresAt, databaseNow(values.now)),
        ),
        or(
          isNull(upstreamReconcileRuns.lastFinishedAt),
          lte(upstreamReconcileRuns.lastFinishedAt, dueBefore),
        ),
      ),
    })
    .returning({ orgId: upstreamReconcileRuns.orgId });
  return rows.length === 1;
}
