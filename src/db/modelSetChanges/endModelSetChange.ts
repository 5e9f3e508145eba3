import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { after, ANNOUNCEMENT_ENDS } from "../resourceObservations/foldedEntry.ts";

/**
 * The model add `beginModelSetChange` announced was answered: `changes` moves on, one fewer in
 * flight; on the sub-workspace's entry of the resources record too, whatever the table holds (docs/decisions/0046, 0047).
 */
export async function endModelSetChange(db: DbExecutor, subWorkspaceId: string): Promise<void> {
  await db.execute(sql`
    with changed as (
      update model_set_changes set changes = changes + 1, in_flight = greatest(0, in_flight - 1)
      where sub_workspace_id = ${subWorkspaceId}
      returning 1
    )
    update resource_observations set ${ANNOUNCEMENT_ENDS}
    where workspace_id = ${subWorkspaceId} and ${after("changed")}
  `);
}
