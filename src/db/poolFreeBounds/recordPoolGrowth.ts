import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";

/**
 * Serenity gave units back to `orgId`'s pool (a release, a sibling lowered), or may have (a
 * lowering whose answer was lost: `null`): a bound still known is raised by what came back, or
 * forgotten when that is unknown, and the dimension's `generation` moves on, so that what a call
 * sent before this could not see is no longer recorded (docs/decisions/0033). One statement for
 * every dimension given.
 */
export async function recordPoolGrowth(
  db: DbExecutor,
  growth: { orgId: string; returned: Partial<Record<Dimension, number | null>> },
): Promise<void> {
  const rows = Object.entries(growth.returned).map(
    ([dimension, units]) => sql`(${growth.orgId}::uuid, ${dimension}, ${units ?? null}::integer)`,
  );
  if (rows.length === 0) return;
  await db.execute(sql`
    with v(org_id, dimension, returned) as (values ${sql.join(rows, sql`, `)})
    insert into pool_free_bounds as r (org_id, dimension, free_below, generation)
    select v.org_id, v.dimension, null, 1 from v
    on conflict (org_id, dimension) do update set
      free_below = r.free_below + (select v.returned from v where v.dimension = r.dimension),
      generation = r.generation + 1
  `);
}
