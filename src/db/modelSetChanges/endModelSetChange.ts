import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";

/** The model add `beginModelSetChange` announced was answered: `changes` moves on, one fewer in flight. */
export async function endModelSetChange(db: DbExecutor, subWorkspaceId: string): Promise<void> {
  await db.execute(sql`
    update model_set_changes set changes = changes + 1, in_flight = greatest(0, in_flight - 1)
    where sub_workspace_id = ${subWorkspaceId}
  `);
}
