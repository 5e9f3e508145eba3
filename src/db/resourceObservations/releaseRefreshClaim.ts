import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/**
 * Gives back a refresh claim whose read failed (claimStaleObservations), so the next view — maybe
 * another member's bearer, which may read what this one could not — can claim the entry at once.
 * Only a claim still ending at `claimedUntil` (ours) is released.
 */
export async function releaseRefreshClaim(
  db: DbExecutor,
  claim: { orgId: string; workspaceId: string; claimedUntil: Date },
): Promise<boolean> {
  const result = await db.execute(sql`
    update resource_observations set refresh_claimed_until = null
    where org_id = ${claim.orgId}::uuid
      and workspace_id = ${claim.workspaceId}
      and refresh_claimed_until = ${claim.claimedUntil.toISOString()}::timestamptz
  `);
  return (result.rowCount ?? 0) > 0;
}
