import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import { runPreparedText } from "../runPrepared.ts";

/**
 * Releases a lease by its holder token only: a stale holder whose lease expired and was taken over
 * deletes nothing. `false` = the lease was no longer ours. With `restartPublishWindow` (the section
 * published), the same statement restarts the sub-workspace's publish window from now on the
 * database's clock (never backwards): upstream's `used` lags from when it took the publish, which
 * may be later than the record written before the call — restarted whether or not the lease was
 * still ours, since the publish was sent either way; on the sub-workspace's entry of the resources
 * record (the fold, docs/decisions/0046, 0048).
 *
 * Committed asynchronously (synchronous_commit off for this statement only): the delete is visible
 * to every other session at once, only its durability waits for the WAL writer. A release lost in
 * a database crash leaves a lease row that expires on its own within one TTL, the same as a holder
 * that crashed — waiters are delayed, mutual exclusion is untouched; a restart lost with it leaves
 * the window started at the publish's record, the call's duration earlier. Waiting for the flush
 * cost most of a lock section's wall time. A named prepared statement (every guarded request).
 */
export async function releaseAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string; restartPublishWindow?: boolean; now?: DatabaseTime },
): Promise<boolean> {
  const result = await runPreparedText<{ released: number }>(db, "release_allocation_lock", RELEASE, [
    values.subWorkspaceId,
    values.holder,
    values.restartPublishWindow ?? false,
    values.now?.toISOString() ?? null,
  ]);
  return result.rows[0]?.released === 1;
}

/** $1 sub-workspace, $2 holder, $3 restart the window, $4 now (else the database's clock). */
const RELEASE = `
  with released as (
    delete from allocation_locks
    where sub_workspace_id = $1 and holder = $2
      -- set_config(…, true) is transaction-local: nothing leaks into the pooled session.
      and set_config('synchronous_commit', 'off', true) is not null
    returning 1
  ), clock as (
    select coalesce($4::timestamptz, date_trunc('milliseconds', clock_timestamp())) as at
  ), restarted as (
    update resource_observations
    set published_at = greatest(published_at, (select at from clock))
    where $3::boolean and workspace_id = $1 and published_at is not null
    returning 1
  )
  select (select count(*) from released)::int as released`;
