import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { after, ANNOUNCEMENT_ENDS, parentEntry } from "../resourceObservations/foldedEntry.ts";

/**
 * A lowering `beginPoolLowering` announced was answered (applied, refused or lost): it is no longer
 * in flight, and the version moves on again, so what a call sent before this answer taught is
 * not recorded (docs/decisions/0033). Its units were counted when it began. The parent's entry of
 * the resources record ends it too, whatever the table holds (docs/decisions/0046, 0047); the
 * table's rows are locked first, in the dimensions' order, as at the begin.
 */
export async function endPoolLowering(
  db: DbExecutor,
  lowering: { orgId: string; dimensions: readonly Dimension[] },
): Promise<void> {
  if (lowering.dimensions.length === 0) return;
  await db.execute(sql`
    with bounds as (
      update pool_free_bounds set
        generation = generation + 1,
        lowerings_in_flight = greatest(0, lowerings_in_flight - 1)
      where org_id = ${lowering.orgId}::uuid
        and dimension in (${sql.join(
          lowering.dimensions.map((dimension) => sql`${dimension}`),
          sql`, `,
        )})
      returning 1
    )
    update resource_observations set ${ANNOUNCEMENT_ENDS}
    where (org_id, workspace_id) in (${parentEntry(lowering.orgId)}) and ${after("bounds")}
  `);
}
