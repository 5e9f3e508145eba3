import { and, eq, notInArray, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { upstreamOrphanSightings } from "../schema.ts";

export type OrphanKind = (typeof upstreamOrphanSightings.$inferSelect)["kind"];

export interface OrphanSighting {
  kind: OrphanKind;
  upstreamId: string;
  workspaceId: string;
}

function keyOf(sighting: { kind: string; upstreamId: string }): string {
  return `${sighting.kind}:${sighting.upstreamId}`;
}

/**
 * Records one pass's orphans of an org and forgets every earlier sighting not among them (tracked,
 * claimed, reclaimed or gone since). Returns when each was first seen (`kind:id` → time): the grace
 * period runs from there.
 */
export async function recordOrphanSightings(
  db: DbExecutor,
  values: { orgId: string; now: Date; sightings: OrphanSighting[] },
): Promise<Map<string, Date>> {
  const { orgId, now, sightings } = values;
  return db.transaction(async (tx) => {
    const keys = sightings.map(keyOf);
    await tx
      .delete(upstreamOrphanSightings)
      .where(
        and(
          eq(upstreamOrphanSightings.orgId, orgId),
          keys.length === 0
            ? sql`true`
            : notInArray(
                sql`${upstreamOrphanSightings.kind} || ':' || ${upstreamOrphanSightings.upstreamId}`,
                keys,
              ),
        ),
      );
    if (sightings.length === 0) return new Map();
    const rows = await tx
      .insert(upstreamOrphanSightings)
      .values(sightings.map((sighting) => ({ ...sighting, orgId, firstSeenAt: now, lastSeenAt: now })))
      .onConflictDoUpdate({
        target: [
          upstreamOrphanSightings.orgId,
          upstreamOrphanSightings.kind,
          upstreamOrphanSightings.upstreamId,
        ],
        set: { lastSeenAt: now, workspaceId: sql`excluded.workspace_id` },
      })
      .returning({
        kind: upstreamOrphanSightings.kind,
        upstreamId: upstreamOrphanSightings.upstreamId,
        firstSeenAt: upstreamOrphanSightings.firstSeenAt,
      });
    return new Map(rows.map((row) => [keyOf(row), row.firstSeenAt]));
  });
}

export { keyOf as sightingKey };
