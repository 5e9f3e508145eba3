import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/**
 * Drops an org's entries of workspaces outside `keep` (the parent, its children as the family read
 * listed them, the brands' sub-workspaces): a sub-workspace deleted upstream leaves the view.
 * Answers how many entries went.
 */
export async function forgetObservations(
  db: DbExecutor,
  scope: { orgId: string; keep: readonly string[] },
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
  `);
  return result.rowCount ?? 0;
}
