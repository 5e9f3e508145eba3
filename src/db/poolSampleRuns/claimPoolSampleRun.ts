import { and, isNull, lt, lte, or, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { poolSampleRuns } from "../schema.ts";

/**
 * Takes an org's pool sample in one statement (docs/decisions/0042): insert the org's row, or take
 * it over when no live lease holds it AND the last sample finished at least `periodMs` ago. `false`
 * = another process samples this org, or did so less than a period ago — a lost race, never an
 * exception. Judged on the database's clock (docs/decisions/0023).
 */
export async function claimPoolSampleRun(
  db: DbExecutor,
  values: { orgId: string; holder: string; now: DatabaseTime; leaseMs: number; periodMs: number },
): Promise<boolean> {
  const rows = await db
    .insert(poolSampleRuns)
    .values({
      orgId: values.orgId,
      holder: values.holder,
      leaseExpiresAt: databaseNowPlus(values.now, values.leaseMs),
    })
    .onConflictDoUpdate({
      target: poolSampleRuns.orgId,
      set: { holder: sql`excluded.holder`, leaseExpiresAt: sql`excluded.lease_expires_at` },
      setWhere: and(
        or(isNull(poolSampleRuns.leaseExpiresAt), lt(poolSampleRuns.leaseExpiresAt, databaseNow(values.now))),
        or(
          isNull(poolSampleRuns.lastFinishedAt),
          lte(poolSampleRuns.lastFinishedAt, databaseNowPlus(values.now, -values.periodMs)),
        ),
      ),
    })
    .returning({ orgId: poolSampleRuns.orgId });
  return rows.length === 1;
}
