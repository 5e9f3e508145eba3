import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/**
 * Claims up to `limit` of these entries of an org for a background refresh, stalest first: those
 * observed before `staleBefore` that no other refresh claimed until after `now`. One guarded
 * statement (`for update skip locked`, then the claim until `claimUntil`), so two processes viewing
 * the same org never refresh the same entry twice; a claim ends when a newer read is recorded
 * (recordResourcesRead clears it) or at `claimUntil`, so a refresher that died frees it by itself.
 * Answers the claimed workspace ids, stalest first.
 */
export async function claimStaleObservations(
  db: DbExecutor,
  claim: {
    orgId: string;
    workspaceIds: readonly string[];
    staleBefore: Date;
    now: Date;
    claimUntil: Date;
    limit: number;
  },
): Promise<string[]> {
  if (claim.workspaceIds.length === 0 || claim.limit <= 0) return [];
  const ids = sql.join(
    claim.workspaceIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const result = await db.execute<{ workspace_id: string; observed_at: Date | string }>(sql`
    with stale as (
      select org_id, workspace_id from resource_observations
      where org_id = ${claim.orgId}::uuid
        and workspace_id in (${ids})
        and observed_at < ${claim.staleBefore.toISOString()}::timestamptz
        and (refresh_claimed_until is null or refresh_claimed_until <= ${claim.now.toISOString()}::timestamptz)
      order by observed_at, workspace_id
      limit ${claim.limit}
      for update skip locked
    )
    update resource_observations r set refresh_claimed_until = ${claim.claimUntil.toISOString()}::timestamptz
    from stale
    where r.org_id = stale.org_id and r.workspace_id = stale.workspace_id
    returning r.workspace_id, r.observed_at
  `);
  return result.rows
    .map((row) => ({ id: row.workspace_id, at: new Date(row.observed_at).getTime() }))
    .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
    .map((row) => row.id);
}
