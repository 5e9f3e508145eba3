import { sql } from "drizzle-orm";

import type { PublishWindow } from "../allocation/findLastPublishes.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, databaseNowPlus } from "../databaseTime.ts";

/**
 * Drops an org's entries of workspaces outside `keep` (the parent, its children as the family read
 * listed them, the brands' sub-workspaces): a sub-workspace deleted upstream leaves the view. An
 * entry whose publish is inside its window, or with an announcement in flight, stays however the
 * family read looks (a read lagging a sub-workspace just made): what allocation reads of it must
 * not go before it stops mattering (docs/decisions/0047); so does the entry of any brand's
 * sub-workspace (its version must never start again from 0 under a section that read it). Answers
 * how many entries went.
 */
export async function forgetObservations(
  db: DbExecutor,
  scope: { orgId: string; keep: readonly string[] },
  window: PublishWindow,
): Promise<number> {
  const keep =
    scope.keep.length === 0
      ? sql`''`
      : sql.join(
          scope.keep.map((id) => sql`${id}`),
          sql`, `,
        );
  const result = await db.execute(sql`
    delete from resource_observations
    where org_id = ${scope.orgId}::uuid and workspace_id not in (${keep})
      and not exists (select 1 from brands b where b.sub_workspace_id = resource_observations.workspace_id)
      and not coalesce(published_at > ${databaseNowPlus(window.now, -window.publishLagMs)}, false)
      and not coalesce(announced > 0 and announced_until > ${databaseNow(window.now)}, false)
  `);
  return result.rowCount ?? 0;
}
