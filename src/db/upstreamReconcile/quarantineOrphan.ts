import { and, eq, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { upstreamOrphanSightings } from "../schema.ts";
import type { OrphanKind } from "./recordOrphanSightings.ts";

/** Marks a sighting quarantined (kept, reported, deleted only on an operator's word). `true` = newly. */
export async function quarantineOrphan(
  db: DbExecutor,
  values: { orgId: string; kind: OrphanKind; upstreamId: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(upstreamOrphanSightings)
    .set({ quarantinedAt: values.now })
    .where(
      and(
        eq(upstreamOrphanSightings.orgId, values.orgId),
        eq(upstreamOrphanSightings.kind, values.kind),
        eq(upstreamOrphanSightings.upstreamId, values.upstreamId),
        isNull(upstreamOrphanSightings.quarantinedAt),
      ),
    )
    .returning({ upstreamId: upstreamOrphanSightings.upstreamId });
  return rows.length === 1;
}
