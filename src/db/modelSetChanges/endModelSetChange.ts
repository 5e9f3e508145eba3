import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { ANNOUNCEMENT_ENDS } from "../resourceObservations/foldedEntry.ts";

/**
 * The model add `beginModelSetChange` announced was answered: on the sub-workspace's entry of the
 * resources record the version moves on, one fewer in flight (docs/decisions/0046, 0048).
 */
export async function endModelSetChange(db: DbExecutor, subWorkspaceId: string): Promise<void> {
  await db.execute(sql`
    update resource_observations set ${ANNOUNCEMENT_ENDS}
    where workspace_id = ${subWorkspaceId}
  `);
}
