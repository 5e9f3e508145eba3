import { sql } from "drizzle-orm";

import type { OrgActivity } from "../../domain/orgBackgroundPace.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";

/** What the background passes decide an org's pace with (src/domain/orgBackgroundPace.ts). */
export interface OrgBackgroundState {
  activity: OrgActivity;
  /** How many upstream calls the org's last reconcile run made; null before any. */
  lastReconcileCalls: number | null;
  /** When its last reconcile run finished; null before any (the run's claim is the guard). */
  lastReconciledAt: Date | null;
}

/** An org the read did not return (created since): nothing recorded of it yet. */
export const NOTHING_RECORDED: OrgBackgroundState = {
  activity: {
    lastRequestAt: null,
    lastJobAt: null,
    lastFailureAt: null,
    jobRunning: false,
    orphansPending: false,
  },
  lastReconcileCalls: null,
  lastReconciledAt: null,
};

type Raw = {
  org_id: string;
  active_at: Date | string | null;
  job_at: Date | string | null;
  failed_at: Date | string | null;
  running: boolean | null;
  orphans_pending: boolean;
  last_calls: number | null;
  last_finished_at: Date | string | null;
};

const dateOf = (value: Date | string | null) => (value === null ? null : new Date(value));

/**
 * Every org's activity in one read, for one tick of a background pass (docs/decisions/0042): its
 * last API mark (org_activity), its jobs changed within `lookBackMs` or still running (through
 * `jobs_status_updated_idx`: only recent or running jobs are read, whatever the table holds), a
 * pending orphan sighting, and its last reconcile run's cost and end. `now` is the database's clock (or the
 * test's hand-driven time), the clock every stamp here was written on.
 */
export async function listOrgBackgroundState(
  db: DbExecutor,
  values: { now: DatabaseTime; lookBackMs: number },
): Promise<{ now: Date; states: Map<string, OrgBackgroundState> }> {
  const since = databaseNowPlus(values.now, -values.lookBackMs);
  const result = await db.execute<Raw & { now: Date | string }>(sql`
    with recent_jobs as (
      select org_id,
             max(updated_at) as job_at,
             max(updated_at) filter (where status = 'FAILED') as failed_at,
             bool_or(status = 'IN_PROGRESS') as running
        from jobs
       where status = 'IN_PROGRESS'
          or (status in ('COMPLETED', 'FAILED') and updated_at > ${since})
       group by org_id
    ), pending_orphans as (
      select distinct org_id from upstream_orphan_sightings where quarantined_at is null
    )
    select o.id as org_id, a.active_at, j.job_at, j.failed_at, j.running,
           p.org_id is not null as orphans_pending, r.last_calls, r.last_finished_at,
           ${databaseNow(values.now)} as now
      from orgs o
      left join org_activity a on a.org_id = o.id
      left join recent_jobs j on j.org_id = o.id
      left join pending_orphans p on p.org_id = o.id
      left join upstream_reconcile_runs r on r.org_id = o.id
     where o.parent_workspace_id is not null`);
  const states = new Map<string, OrgBackgroundState>();
  let now = values.now ?? new Date();
  for (const row of result.rows) {
    now = new Date(row.now);
    states.set(row.org_id, {
      activity: {
        lastRequestAt: dateOf(row.active_at),
        lastJobAt: dateOf(row.job_at),
        lastFailureAt: dateOf(row.failed_at),
        jobRunning: row.running === true,
        orphansPending: row.orphans_pending,
      },
      lastReconcileCalls: row.last_calls,
      lastReconciledAt: dateOf(row.last_finished_at),
    });
  }
  return { now, states };
}
