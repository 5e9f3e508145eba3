import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { meteringFromRecord } from "../resourceObservations/meteringColumns.ts";
import { orgs, resourceObservations } from "../schema.ts";
import type { OrgWithMetering } from "./orgRow.ts";

/**
 * The org and its parent's metering, in one statement: the parent's entry of the resources record
 * is joined on its primary key (no entry, or one never read for metering: `unknown`).
 */
export async function findOrgById(db: DbExecutor, orgId: string): Promise<OrgWithMetering | undefined> {
  const [row] = await db
    .select({
      org: orgs,
      metering: resourceObservations.metering,
      meteringAsOf: resourceObservations.meteringAsOf,
    })
    .from(orgs)
    .leftJoin(
      resourceObservations,
      and(
        eq(resourceObservations.orgId, orgs.id),
        eq(resourceObservations.workspaceId, orgs.parentWorkspaceId),
      ),
    )
    .where(eq(orgs.id, orgId))
    .limit(1);
  return row ? { ...row.org, metering: meteringFromRecord(row.metering, row.meteringAsOf) } : undefined;
}
