import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { ANNOUNCEMENT_ENDS, parentEntry } from "../resourceObservations/foldedEntry.ts";

/**
 * A lowering `beginPoolLowering` announced was answered (applied, refused or lost): it is no longer
 * in flight, and the version moves on again, so what a call sent before this answer taught is
 * not recorded (docs/decisions/0033). Its units were counted when it began. On the parent's entry
 * of the resources record (docs/decisions/0046, 0048).
 */
export async function endPoolLowering(
  db: DbExecutor,
  lowering: { orgId: string; dimensions: readonly Dimension[] },
): Promise<void> {
  if (lowering.dimensions.length === 0) return;
  await db.execute(sql`
    update resource_observations set ${ANNOUNCEMENT_ENDS}
    where (org_id, workspace_id) in (${parentEntry(lowering.orgId)})
  `);
}
