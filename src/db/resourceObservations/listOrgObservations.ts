import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import {
  OBSERVATION_COLUMNS,
  observationOf,
  type RawObservation,
  type ResourceObservation,
} from "./observationRow.ts";

/** Every entry of the resources record for one org (the parent's and its sub-workspaces'). */
export async function listOrgObservations(db: DbExecutor, orgId: string): Promise<ResourceObservation[]> {
  const result = await db.execute<RawObservation>(sql`
    select ${sql.raw(OBSERVATION_COLUMNS)} from resource_observations
    where org_id = ${orgId}::uuid
  `);
  return result.rows.map(observationOf);
}
