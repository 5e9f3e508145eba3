import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/**
 * Gives an org's entries the titles the parent's family read listed (a brand's sub-workspace has
 * none until its brand lets go of it and the view shows it as unattached). Answers how many changed.
 */
export async function recordTitles(
  db: DbExecutor,
  scope: { orgId: string; titles: readonly { id: string; title: string }[] },
): Promise<number> {
  if (scope.titles.length === 0) return 0;
  const rows = sql.join(
    scope.titles.map(({ id, title }) => sql`(${id}, ${title})`),
    sql`, `,
  );
  const result = await db.execute(sql`
    update resource_observations r set title = v.title
    from (values ${rows}) as v(id, title)
    where r.org_id = ${scope.orgId}::uuid and r.workspace_id = v.id and r.title is distinct from v.title
  `);
  return result.rowCount ?? 0;
}
