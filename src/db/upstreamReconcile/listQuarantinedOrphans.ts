import { and, eq, isNotNull, type SQL } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { upstreamOrphanSightings } from "../schema.ts";

export type QuarantinedOrphan = Pick<
  typeof upstreamOrphanSightings.$inferSelect,
  "orgId" | "kind" | "upstreamId" | "workspaceId" | "firstSeenAt" | "quarantinedAt"
>;

/** Quarantined sightings, of one org or (no `orgId`) every org; optionally one upstream id. */
export async function listQuarantinedOrphans(
  db: DbExecutor,
  filter: { orgId?: string; upstreamId?: string } = {},
): Promise<QuarantinedOrphan[]> {
  const conditions: SQL[] = [isNotNull(upstreamOrphanSightings.quarantinedAt)];
  if (filter.orgId !== undefined) conditions.push(eq(upstreamOrphanSightings.orgId, filter.orgId));
  if (filter.upstreamId !== undefined)
    conditions.push(eq(upstreamOrphanSightings.upstreamId, filter.upstreamId));
  return db
    .select({
      orgId: upstreamOrphanSightings.orgId,
      kind: upstreamOrphanSightings.kind,
      upstreamId: upstreamOrphanSightings.upstreamId,
      workspaceId: upstreamOrphanSightings.workspaceId,
      firstSeenAt: upstreamOrphanSightings.firstSeenAt,
      quarantinedAt: upstreamOrphanSightings.quarantinedAt,
    })
    .from(upstreamOrphanSightings)
    .where(and(...conditions));
}
