import type { DbExecutor } from "../database.ts";
import { markets } from "../schema.ts";

/**
 * A `ready` market row for a project upstream already has (the reconciler re-attaching a project a
 * restore forgot). Nothing when the brand's slice has a row already (`markets_brand_slice_unique`):
 * `false`, the slot is taken.
 */
export async function reattachMarket(
  db: DbExecutor,
  values: {
    brandId: string;
    geoTargetId: number;
    languageCode: string;
    country: string;
    workspaceId: string;
    projectId: string;
    now: Date;
  },
): Promise<boolean> {
  const rows = await db
    .insert(markets)
    .values({
      brandId: values.brandId,
      geoTargetId: values.geoTargetId,
      languageCode: values.languageCode,
      country: values.country,
      workspaceId: values.workspaceId,
      status: "ready",
      projectId: values.projectId,
      createdAt: values.now,
      updatedAt: values.now,
    })
    .onConflictDoNothing({ target: [markets.brandId, markets.geoTargetId, markets.languageCode] })
    .returning({ id: markets.id });
  return rows.length === 1;
}
