import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { PoolSampleDimension } from "../schema.ts";
import type { PoolSampleRow } from "./poolSampleRow.ts";

type Raw = {
  id: string | number;
  org_id: string;
  projects: PoolSampleDimension;
  prompts: PoolSampleDimension;
  sampled_at: Date | string;
};

/**
 * The newest sample of each of these orgs (orgs without a sample are absent), or of every org when
 * `orgIds` is undefined (an admin): one backward read of the (org_id, sampled_at) index per org,
 * so the cost follows the number of orgs, not the length of their history.
 */
export async function latestPoolSamples(
  db: DbExecutor,
  orgIds: readonly string[] | undefined,
): Promise<PoolSampleRow[]> {
  if (orgIds !== undefined && orgIds.length === 0) return [];
  const scope =
    orgIds === undefined
      ? sql`true`
      : sql`o.id in (${sql.join(
          orgIds.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`;
  const result = await db.execute<Raw>(sql`
    select s.id, s.org_id, s.projects, s.prompts, s.sampled_at
    from orgs o
    cross join lateral (
      select * from pool_samples p
      where p.org_id = o.id
      order by p.sampled_at desc, p.id desc
      limit 1
    ) s
    where ${scope}
    order by o.id
  `);
  return result.rows.map((row) => ({
    id: Number(row.id),
    orgId: row.org_id,
    projects: row.projects,
    prompts: row.prompts,
    sampledAt: new Date(row.sampled_at),
  }));
}
