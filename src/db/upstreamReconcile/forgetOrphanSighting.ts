import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { upstreamOrphanSightings } from "../schema.ts";
import type { OrphanKind } from "./recordOrphanSightings.ts";

/** Forgets one sighting (its thing was reclaimed). `false` = there was none. */
export async function forgetOrphanSighting(
  db: DbExecutor,
  values: { orgId: string; kind: OrphanKind; upstreamId: string },
): Promise<boolean> {
  const rows = await db
    .delete(upstreamOrphanSightings)
    .where(
      and(
        eq(upstreamOrphanSightings.orgId, values.orgId),
        eq(upstreamOrphanSightings.kind, values.kind),
        eq(upstreamOrphanSightings.upstreamId, values.upstreamId),
      ),
    )
    .returning({ upstreamId: upstreamOrphanSightings.upstreamId });
  return rows.length === 1;
}
